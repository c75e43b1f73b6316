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

/** The GitHub Action step that begins trails of `flow` and attests their JUnit results. */
export const actionStep = (org: string, flow: string) =>
  `- uses: trailproof/trailproof@v1\n  if: \${{ !cancelled() }}\n  with:\n    server-url: https://trailproof.example.com\n    api-token: \${{ secrets.TRAILPROOF_TOKEN }}\n    org: ${org}\n    flow: ${flow}`;

/** The call that creates an environment, for the empty states that list them. */
export const createEnvironmentExample = (apiBase: string, org: string) =>
  `curl -X PUT "${apiBase}/environments/${org}" -H "Authorization: Bearer $TOKEN" \\\n  -H 'Content-Type: application/json' -d '{"name":"production","type":"K8S"}'`;
