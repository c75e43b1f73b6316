/** Names as links separated by commas (policies, environments); `empty` when there are none. */
import type { ComponentChildren } from 'preact';

export function LinkList({ names, href, empty }: { names: readonly string[]; href: (name: string) => string; empty: ComponentChildren }) {
  if (!names.length) return <span class="muted">{empty}</span>;
  return (
    <>
      {names.map((name, i) => (
        <>
          {i ? ', ' : null}
          <a href={href(name)}>{name}</a>
        </>
      ))}
    </>
  );
}
