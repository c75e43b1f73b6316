/** An empty list that says what would fill it: the curl call or the workflow step. */
import type { ComponentChildren } from 'preact';

export function Empty({ children, example }: { children: ComponentChildren; example?: string }) {
  return (
    <div class="empty">
      <p>{children}</p>
      {example ? <pre>{example}</pre> : null}
    </div>
  );
}
