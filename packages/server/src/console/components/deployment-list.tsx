/**
 * A page of deployments read with the API's own query (`listDeployments`: its window, filters,
 * counts and paging), shown as a table whose rows link to the environment, its snapshot and the
 * trail that attested the artifact. The rows are written where they are read, as the API's items
 * are (store/views.ts): on a reader thread with SQLite, as escaped markup (markup.ts).
 */
import type { DeploymentFilter, DeploymentListRow } from '../../store/index.ts';
import { itemsView } from '../../store/views.ts';
import { artifactPageHref, environmentPageHref, type LinkBase, trailPageHref } from '../links.ts';
import { html, type Markup } from '../markup.ts';
import type { PageInput } from '../page.ts';
import { complianceMarkup } from './compliance.tsx';
import { timeMarkup } from './time.tsx';

/** What the rows' links and times need: plain values, for a reader thread. */
export interface DeploymentRowsContext {
  base: string;
  org: string;
  now: number;
}

/** The environment page showing what ran at one of its snapshots. */
export const snapshotPageHref = (at: LinkBase, env: string, index: number) => `${environmentPageHref(at, env)}?snapshot=${index}`;

/** The artifact's compliance when it started, as stored with its snapshot; unknown for a deployment with no recorded start. */
const compliantWhenStarted = (compliant: number | null) =>
  complianceMarkup(compliant === null ? null : Number(compliant) === 1, compliant === null ? 'UNKNOWN' : undefined);

/** The table's rows (`<tr>`s), newest first, as HTML text with every value escaped. */
export function deploymentRowsHtml(rows: readonly DeploymentListRow[], c: DeploymentRowsContext): string {
  const at = { base: c.base, org: { name: c.org } };
  // A page holds few environments: each one's links are built and escaped once.
  const environments = new Map<string, { href: Markup; link: Markup }>();
  const environmentOf = (name: string) => {
    let known = environments.get(name);
    if (!known) {
      const href = html`${environmentPageHref(at, name)}`;
      environments.set(name, (known = { href, link: html`<a href="${href}">${name}</a>` }));
    }
    return known;
  };
  let out = '';
  for (const r of rows) {
    const env = environmentOf(r.env_name);
    const index = Number(r.snapshot_index);
    const trail =
      r.trail_name !== null && r.flow_name !== null
        ? html`<a href="${trailPageHref(at, r.flow_name, r.trail_name)}">${r.flow_name}/${r.trail_name}</a>`
        : html`<span class="muted">no trail attested it</span>`;
    out +=
      html`<tr><td>${timeMarkup(Number(r.deployed_at), c.now)}</td><td>${r.artifact_name}</td><td><a href="${artifactPageHref(at, r.fingerprint)}"><code title="${r.fingerprint}">${r.fingerprint.slice(0, 12)}</code></a></td><td>${env.link}</td><td><a href="${env.href}?snapshot=${index}">#${index}</a></td><td>${trail}</td><td>${compliantWhenStarted(r.artifact_compliant)}</td></tr>`
        .text;
  }
  return out;
}

/**
 * The page of deployments the API would answer for `filter`, as the table's rows. `rowsHtml` is
 * empty when no deployment matches.
 */
export async function readDeployments(
  input: Pick<PageInput, 'store' | 'org' | 'base' | 'now'>,
  filter: DeploymentFilter,
): Promise<{ rowsHtml: string; total: number }> {
  const view = itemsView(import.meta.url, deploymentRowsHtml, { base: input.base, org: input.org.name, now: input.now });
  const { itemsJson, total } = await input.store.listDeployments(input.org.id, filter, view);
  return { rowsHtml: itemsJson, total };
}

export function DeploymentTable({ rowsHtml, caption }: { rowsHtml: string; caption: string }) {
  return (
    <table class="deployments">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Deployed (UTC)</th>
          <th scope="col">Artifact</th>
          <th scope="col">Fingerprint</th>
          <th scope="col">Environment</th>
          <th scope="col">Snapshot</th>
          <th scope="col">Trail</th>
          <th scope="col">When deployed</th>
        </tr>
      </thead>
      <tbody dangerouslySetInnerHTML={{ __html: rowsHtml }} />
    </table>
  );
}
