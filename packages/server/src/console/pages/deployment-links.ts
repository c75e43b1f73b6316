/** Where a deployment of `listDeployments` (asked with `apiBase: ''`) links: its trail's flow and name. */
import type { DeploymentRecord } from '../../http/views/deployments.ts';

export function trailOfDeployment(d: DeploymentRecord): { flow: string; trail: string } | undefined {
  const href = d._links.trail?.href;
  if (!href) return undefined;
  // `/trails/{org}/{flow}/{trail}`, each segment encoded.
  const [, kind, , flow, trail] = href.split('/');
  return kind === 'trails' && flow && trail ? { flow: decodeURIComponent(flow), trail: decodeURIComponent(trail) } : undefined;
}
