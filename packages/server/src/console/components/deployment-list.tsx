/**
 * A page of deployments read with the API's own query (`listDeployments`: its window, filters,
 * counts and paging), shown as a table whose rows link to the environment, its snapshot and the
 * trail that attested the artifact.
 */
import { defaultWindowSeconds } from '../../operations/list-deployments.ts';
import type { ArtifactApproval, DeploymentFilter, DeploymentListRow } from '../../store/index.ts';
import { artifactPageHref, environmentPageHref, type LinkBase, orgHref, trailPageHref } from '../links.ts';
import type { PageInput } from '../page.ts';
import { Compliance } from './compliance.tsx';
import { Time } from './time.tsx';

/** The environment page showing what ran at one of its snapshots. */
export const snapshotPageHref = (at: LinkBase, env: string, index: number) => `${environmentPageHref(at, env)}?snapshot=${index}`;

/** The page of deployments the API would answer for `filter`: its rows (none when no deployment matches) and how many match. */
export function readDeployments(input: Pick<PageInput, 'store' | 'org'>, filter: DeploymentFilter): Promise<{ rows: DeploymentListRow[]; total: number }> {
  return input.store.listDeployments(input.org.id, filter);
}

/**
 * Until when (Unix seconds, exclusive) a window that ends now keeps the rows it holds, whatever
 * the filter (the organisation's deployments: a bound that may come early, never late): until the
 * next deployment after its end enters it, and, when its start moves with its end, until its oldest
 * row leaves it; when the asked start is still to come, until the window starts there.
 */
export async function windowLastsUntil(
  input: Pick<PageInput, 'store' | 'org' | 'cache'>,
  w: { start: number; end: number; asked: number | undefined },
): Promise<number> {
  const { store, org } = input;
  // Only a cache that keeps a page needs to know until when it holds.
  if (!input.cache.keeps) return Number.POSITIVE_INFINITY;
  const startMoves = w.asked === undefined || w.asked > w.end;
  const [next, oldest] = await Promise.all([
    store.firstDeploymentFrom(org.id, w.end, true),
    startMoves ? store.firstDeploymentFrom(org.id, w.start, false) : null,
  ]);
  return Math.min(next ?? Infinity, oldest === null ? Infinity : oldest + defaultWindowSeconds, w.asked !== undefined && w.asked > w.end ? w.asked : Infinity);
}

/**
 * The approval that covers a deployment, from `approvals` (newest first, as `approvalsOfFingerprints`
 * answers): of its artifact, for its environment or for any; an approved one before any other.
 */
export function approvalOfDeployment(approvals: readonly ArtifactApproval[], row: DeploymentListRow): ArtifactApproval | undefined {
  const covering = approvals.filter((a) => a.fingerprint === row.fingerprint && (a.environment === null || a.environment === row.env_name));
  return covering.find((a) => a.state === 'APPROVED') ?? covering[0];
}

function ApprovalCell({ at, approval }: { at: LinkBase; approval: ArtifactApproval | undefined }) {
  if (!approval) return <span class="muted">not approved</span>;
  const link = (
    <a href={orgHref(at, 'flows', approval.flowName, 'approvals', approval.releaseNumber)}>
      {approval.flowName} #{approval.releaseNumber}
    </a>
  );
  if (approval.state === 'APPROVED') return <span class="approved">approved: {link}</span>;
  return (
    <span>
      not approved: {link} ({approval.state.toLowerCase()})
    </span>
  );
}

function DeploymentRow({ at, row, now, approvals }: { at: LinkBase; row: DeploymentListRow; now: number; approvals?: readonly ArtifactApproval[] }) {
  const environment = environmentPageHref(at, row.env_name);
  return (
    <tr>
      <td>
        <Time at={row.deployed_at} now={now} />
      </td>
      <td>{row.artifact_name}</td>
      <td>
        <a href={artifactPageHref(at, row.fingerprint)}>
          <code title={row.fingerprint}>{row.fingerprint.slice(0, 12)}</code>
        </a>
      </td>
      <td>
        <a href={environment}>{row.env_name}</a>
      </td>
      <td>
        <a href={`${environment}?snapshot=${row.snapshot_index}`}>#{row.snapshot_index}</a>
      </td>
      <td>
        {row.trail_name !== null && row.flow_name !== null ? (
          <a href={trailPageHref(at, row.flow_name, row.trail_name)}>
            {row.flow_name}/{row.trail_name}
          </a>
        ) : (
          <span class="muted">no trail attested it</span>
        )}
      </td>
      <td>
        {/* As stored with its snapshot; unknown for a deployment with no recorded start. */}
        <Compliance compliant={row.artifact_compliant} label={row.artifact_compliant === null ? 'UNKNOWN' : undefined} />
      </td>
      {approvals ? (
        <td>
          <ApprovalCell at={at} approval={approvalOfDeployment(approvals, row)} />
        </td>
      ) : null}
    </tr>
  );
}

/** The table of `rows`; with `approvals` (those of the rows' artifacts), a column of the approval that covers each. */
export function DeploymentTable({
  at,
  rows,
  now,
  caption,
  approvals,
}: {
  at: LinkBase;
  rows: readonly DeploymentListRow[];
  now: number;
  caption: string;
  approvals?: readonly ArtifactApproval[];
}) {
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
          {approvals ? <th scope="col">Approval</th> : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <DeploymentRow at={at} row={row} now={now} approvals={approvals} />
        ))}
      </tbody>
    </table>
  );
}
