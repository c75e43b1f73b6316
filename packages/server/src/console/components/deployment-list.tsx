/**
 * A page of deployments read with the API's own query (`listDeployments`: its window, filters,
 * counts and paging), shown as a table whose rows link to the environment, its snapshot and the
 * trail that attested the artifact.
 */
import type { DeploymentFilter } from '../../store/index.ts';
import { deploymentsView } from '../../http/views/deployments.ts';
import { environmentPageHref, trailPageHref } from '../links.ts';
import type { PageInput } from '../page.ts';
import { Time } from './time.tsx';

export interface DeploymentRow {
  fingerprint: string;
  deployedAt: number;
  artifactName: string;
  envName: string;
  snapshotIndex: number;
  trail: { flow: string; name: string } | null;
}

/**
 * The page of deployments the API would answer for `filter`. The store writes each item's
 * `_links` for the API; with an empty API base a trail's is `/trails/{org}/{flow}/{trail}` with
 * each segment encoded, which gives back the flow's and trail's names.
 */
export async function readDeployments(input: Pick<PageInput, 'store' | 'org'>, filter: DeploymentFilter): Promise<{ rows: DeploymentRow[]; total: number }> {
  const { itemsJson, total } = await input.store.listDeployments(input.org.id, filter, deploymentsView({ org: input.org.name, apiBase: '' }));
  const items = JSON.parse(itemsJson) as Array<{
    fingerprint: string;
    deployed_at: number;
    artifact_name: string;
    env_name: string;
    snapshot_index: number;
    _links: { trail?: { href: string } };
  }>;
  const rows = items.map((item): DeploymentRow => {
    const [, , , flow, trail] = item._links.trail?.href.split('/') ?? [];
    return {
      fingerprint: item.fingerprint,
      deployedAt: item.deployed_at,
      artifactName: item.artifact_name,
      envName: item.env_name,
      snapshotIndex: item.snapshot_index,
      trail: flow !== undefined && trail !== undefined ? { flow: decodeURIComponent(flow), name: decodeURIComponent(trail) } : null,
    };
  });
  return { rows, total };
}

/** The environment page showing what ran at one of its snapshots. */
export const snapshotPageHref = (at: Pick<PageInput, 'base' | 'org'>, env: string, index: number) => `${environmentPageHref(at, env)}?snapshot=${index}`;

export function DeploymentTable({ at, rows, now, caption }: { at: Pick<PageInput, 'base' | 'org'>; rows: DeploymentRow[]; now: number; caption: string }) {
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
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.envName}-${row.snapshotIndex}-${row.fingerprint}`}>
            <td>
              <Time at={row.deployedAt} now={now} />
            </td>
            <td>{row.artifactName}</td>
            <td>
              <code title={row.fingerprint}>{row.fingerprint.slice(0, 12)}</code>
            </td>
            <td>
              <a href={environmentPageHref(at, row.envName)}>{row.envName}</a>
            </td>
            <td>
              <a href={snapshotPageHref(at, row.envName, row.snapshotIndex)}>#{row.snapshotIndex}</a>
            </td>
            <td>
              {row.trail ? (
                <a href={trailPageHref(at, row.trail.flow, row.trail.name)}>
                  {row.trail.flow}/{row.trail.name}
                </a>
              ) : (
                <span class="muted">no trail attested it</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
