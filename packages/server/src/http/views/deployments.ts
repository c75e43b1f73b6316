/**
 * The deployments page's items as the API answers them: each with `_links` to its environment,
 * snapshot and (when one attested the artifact) trail, written from the rows `listDeployments` reads.
 */
import type { DeploymentListRow } from '../../store/queries/deployments.ts';
import { environmentHref, trailHref, type ViewContext } from '../links.ts';

/** A deployment as the API answers it (an item of `deploymentItemsJson`). */
export interface DeploymentRecord {
  fingerprint: string;
  deployed_at: number;
  artifact_name: string;
  env_name: string;
  snapshot_index: number;
  /** The matched artifact's flow, trail and git commit; null when no trail reported or attested it. */
  flow_name: string | null;
  trail_name: string | null;
  git_commit: string | null;
  /** `trail` only when a trail attested the artifact. */
  _links: { environment: { href: string }; snapshot: { href: string }; trail?: { href: string } };
}

/** The items' JSON text, links under `at`. */
export function deploymentItemsJson(rows: readonly DeploymentListRow[], at: ViewContext): string {
  // A page holds few environments: each one's link is built once.
  const environments = new Map<string, string>();
  const environmentLink = (name: string) => environments.get(name) ?? environments.set(name, environmentHref(at, name)).get(name)!;
  const items = rows.map((r): DeploymentRecord => {
    const environment = environmentLink(r.env_name);
    const snapshotIndex = r.snapshot_index;
    return {
      fingerprint: r.fingerprint,
      deployed_at: r.deployed_at,
      artifact_name: r.artifact_name,
      env_name: r.env_name,
      snapshot_index: snapshotIndex,
      flow_name: r.trail_name && r.flow_name ? r.flow_name : null,
      trail_name: r.trail_name && r.flow_name ? r.trail_name : null,
      git_commit: r.trail_name ? (r.artifact_commit ?? r.trail_commit) : null,
      _links: {
        environment: { href: environment },
        snapshot: { href: `${environment}/snapshots/${snapshotIndex}` },
        ...(r.trail_name && r.flow_name ? { trail: { href: trailHref(at, r.flow_name, r.trail_name) } } : {}),
      },
    };
  });
  return JSON.stringify(items);
}
