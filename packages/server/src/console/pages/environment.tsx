/**
 * An environment: its attached policies, what runs there now (or at `?snapshot=N`), each artifact
 * with its fingerprint, whether it passes the policies (or, with none, whether a compliant trail
 * attested it), the trail behind it (linked) and the approval that covered it; the snapshot
 * timeline of what started, scaled and exited; its latest deployments.
 */
import { describeChange } from '../../domain/events.ts';
import { TrailEvaluator } from '../../domain/evaluate.ts';
import type { ArtifactMatch } from '../../domain/running.ts';
import { judgeRunning } from '../../domain/snapshot-judgement.ts';
import { notFound } from '../../http/errors.ts';
import { requireEnvironment } from '../../operations/lookup.ts';
import { defaultWindowSeconds } from '../../operations/list-deployments.ts';
import type { ArtifactApproval, Store } from '../../store/index.ts';
import { Compliance, complianceMarkup } from '../components/compliance.tsx';
import { DeploymentTable, readDeployments, snapshotPageHref, windowLastsUntil } from '../components/deployment-list.tsx';
import { Empty } from '../components/empty.tsx';
import { LinkList } from '../components/link-list.tsx';
import { Pager } from '../components/table.tsx';
import { Time, timeMarkup } from '../components/time.tsx';
import { artifactPageHref, environmentPageHref, orgHref, queryNumber, trailPageHref } from '../links.ts';
import { html } from '../markup.ts';
import { definePage } from '../page.ts';
import { policyPageHref } from './policies.tsx';

const eventsPerPage = 20;
const latestDeployments = 10;

type Judged = Map<string, { trail: ArtifactMatch | undefined; compliant: boolean }>;

/**
 * For each matched fingerprint: the trail a person should open (the newest compliant one, else
 * the newest) and whether it is compliant by the environment's rule (its policies, its
 * allow-list, else provenance: domain/snapshot-judgement.ts), all judged in one batch.
 */
async function attestingTrails(
  store: Store,
  organizationId: number,
  environment: { id: number; name: string; policies: string[] },
  running: readonly { name: string; fingerprint: string }[],
  now: number,
): Promise<Judged> {
  const { evidence } = await judgeRunning(store, new TrailEvaluator(store, now), { organizationId, environment, running, now });
  const out: Judged = new Map();
  for (const [fingerprint, known] of evidence) out.set(fingerprint, { trail: known.match, compliant: known.compliant });
  return out;
}

/**
 * What the page shows of an environment at a snapshot (the latest when `asked` is 0): the
 * snapshot, the trails that attested what ran then as judged, the approvals covering them and a
 * page of the timeline. Remembered until the next commit (page-cache.ts): all of it is a
 * function of what is stored, a verdict too (the time only dates it), and a page of an
 * environment asks the same again and again.
 * The latest deployments are not in it: their window moves with the time.
 */
async function readEnvironment(store: Store, orgName: string, organizationId: number, envName: string, asked: number, page: number) {
  const { environment } = await requireEnvironment(store, orgName, envName);
  const latest = await store.getSnapshot(environment.id, -1);
  const snapshot = asked && latest && asked !== latest.index ? await store.getSnapshot(environment.id, asked) : latest;
  if (asked && !snapshot) throw notFound(`Environment '${environment.name}' has no snapshot ${asked}.`);
  const fingerprints = (snapshot?.artifacts ?? []).map((a) => a.fingerprint);
  const [trails, approvals, events] = await Promise.all([
    attestingTrails(store, organizationId, environment, snapshot?.artifacts ?? [], Date.now() / 1000),
    store.approvalsOfFingerprints(organizationId, fingerprints),
    store.listEnvironmentEvents(environment.id, { oldestFirst: false, offset: (page - 1) * eventsPerPage, limit: eventsPerPage }),
  ]);
  return { environment, latest, snapshot, isLatest: snapshot === latest, trails, approvals, events };
}

/** What an artifact's compliance says: by the attached policies (and allow-list) when there are any, else by its trail. */
function runningLabel(evidence: { trail: ArtifactMatch | undefined; compliant: boolean } | undefined, byPolicies: boolean): string {
  if (byPolicies) return evidence?.compliant ? 'PASSES ITS POLICIES' : 'FAILS ITS POLICIES';
  if (!evidence?.trail) return evidence?.compliant ? 'ALLOWED' : 'NOT ATTESTED';
  return evidence.compliant ? 'ATTESTED BY A COMPLIANT TRAIL' : 'NO COMPLIANT TRAIL';
}

export const environmentPage = definePage({
  path: '/:org/environments/:env',
  // Its HTML is remembered until the next commit, until a "how long ago" it writes moves or until its latest deployments' window gains or loses one.
  remembered: true,
  async render(input) {
    const { store, params, query, now, url } = input;
    const asked = queryNumber(query, 'snapshot', 0, 1, Number.MAX_SAFE_INTEGER);
    const page = queryNumber(query, 'page', 1, 1, 100_000);
    const start = now - defaultWindowSeconds;
    const [{ environment, latest, snapshot, isLatest, trails, approvals, events }, deployments, until] = await Promise.all([
      input.cache.read('environment', { org: input.org.id, env: params.env!, snapshot: asked, page }, () =>
        readEnvironment(store, input.org.name, input.org.id, params.env!, asked, page),
      ),
      readDeployments(input, { start, end: now, envName: params.env!, offset: 0, limit: latestDeployments }),
      windowLastsUntil(input, { start, end: now, asked: undefined }),
    ]);
    const running = snapshot?.artifacts ?? [];
    const attested = running.filter((a) => trails.get(a.fingerprint)?.compliant).length;
    const byPolicies = environment.policies.length > 0;
    const approvalOf = (fingerprint: string): ArtifactApproval | undefined =>
      approvals.find((a) => a.fingerprint === fingerprint && (a.environment === null || a.environment === environment.name));
    return {
      until,
      title: `${environment.name} · environment`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{input.org.name}</a> › environments
          </p>
          <h1>
            {environment.name} <Compliance compliant={latest ? environment.state : null} label={latest ? undefined : 'NOT REPORTED'} />
          </h1>
          <dl class="facts">
            <dt>Type</dt>
            <dd>{environment.type}</dd>
            {environment.description ? (
              <>
                <dt>Description</dt>
                <dd>{environment.description}</dd>
              </>
            ) : null}
            <dt>Policies</dt>
            <dd data-testid="environment-policies">
              <LinkList
                names={environment.policies}
                href={(name) => policyPageHref(input, name)}
                empty="none (an artifact is compliant when a compliant trail attested it)"
              />
            </dd>
            <dt>Last report</dt>
            <dd>
              <Time at={environment.last_reported_at} now={now} />
            </dd>
            <dt>Last change</dt>
            <dd>
              <Time at={environment.last_changed_at} now={now} />
            </dd>
          </dl>

          <h2 id="running">{isLatest ? 'Running now' : `Running at snapshot #${snapshot?.index}`}</h2>
          {snapshot ? (
            <>
              <p class="summary" data-testid="running-summary">
                {`${environment.name}: ${running.length} ${running.length === 1 ? 'artifact' : 'artifacts'} running, ${attested} ${byPolicies ? 'pass its policies' : 'attested by a compliant trail'}, ${running.length - attested} not`}
                {` (snapshot #${snapshot.index}, `}
                <Time at={snapshot.createdAt} now={now} />
                {').'}
                {isLatest ? null : (
                  <>
                    {' '}
                    <a href={environmentPageHref(input, environment.name)}>Show what runs now</a>
                  </>
                )}
              </p>
              <table>
                <caption class="visually-hidden">Artifacts running in {environment.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Artifact</th>
                    <th scope="col">Fingerprint (SHA-256)</th>
                    <th scope="col" class="num">
                      Instances
                    </th>
                    <th scope="col">Since</th>
                    <th scope="col">Compliance</th>
                    <th scope="col">Trail</th>
                    <th scope="col">Approval</th>
                  </tr>
                </thead>
                <tbody
                  dangerouslySetInnerHTML={{
                    __html: html`${running.map((artifact) => {
                      const evidence = trails.get(artifact.fingerprint);
                      const approval = approvalOf(artifact.fingerprint);
                      const compliance = complianceMarkup(evidence?.compliant ?? false, runningLabel(evidence, byPolicies));
                      const trail = evidence?.trail
                        ? html`<a href="${trailPageHref(input, evidence.trail.flowName, evidence.trail.trailName)}">${evidence.trail.flowName}/${evidence.trail.trailName}</a>`
                        : html`<span class="muted">no trail attested it</span>`;
                      const approvalCell = approval
                        ? html`<a href="${orgHref(input, 'flows', approval.flowName, 'approvals', approval.releaseNumber)}">${approval.flowName} #${approval.releaseNumber} (${approval.state.toLowerCase()})</a>`
                        : html`<span class="muted">none</span>`;
                      return html`<tr data-artifact="${artifact.name}"><td>${artifact.name}</td><td><a href="${artifactPageHref(input, artifact.fingerprint)}"><code class="fingerprint">${artifact.fingerprint}</code></a></td><td class="num">${artifact.instance_count}</td><td>${timeMarkup(artifact.creation_timestamp, now)}</td><td>${compliance}</td><td>${trail}</td><td>${approvalCell}</td></tr>`;
                    })}`.text,
                  }}
                />
              </table>
            </>
          ) : (
            <Empty
              example={`curl -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  ${input.apiBase}/environments/${input.org.name}/${environment.name}/report/${environment.type} \\\n  -d '{"artifacts": [{"podName": "api-1", "namespace": "prod", "digests": {"api": "<sha256>"}, "creationTimestamp": 1764150000}]}'`}
            >
              Nothing reported yet: a report of what runs makes the first snapshot.
            </Empty>
          )}

          <h2 id="timeline">Snapshot timeline</h2>
          {events.total === 0 ? (
            <Empty>No snapshot has changed what runs yet.</Empty>
          ) : (
            <>
              <table>
                <caption class="visually-hidden">What started, scaled and exited in {environment.name}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Snapshot</th>
                    <th scope="col">Reported (UTC)</th>
                    <th scope="col">Change</th>
                    <th scope="col">Artifact</th>
                    <th scope="col">Fingerprint</th>
                    <th scope="col">Trail</th>
                  </tr>
                </thead>
                <tbody
                  dangerouslySetInnerHTML={{
                    __html: html`${events.items.map((event) => {
                      const trail = event.trail
                        ? html`<a href="${trailPageHref(input, event.trail.flowName, event.trail.name)}">${event.trail.flowName}/${event.trail.name}</a>`
                        : html`<span class="muted">none</span>`;
                      return html`<tr class="event-${event.type}"><td><a href="${snapshotPageHref(input, environment.name, event.snapshotIndex)}">#${event.snapshotIndex}</a></td><td>${timeMarkup(event.reportedAt, now)}</td><td><strong>${event.type}</strong> <span class="rel">${describeChange(event)}</span></td><td>${event.artifactName}</td><td><a href="${artifactPageHref(input, event.fingerprint)}"><code title="${event.fingerprint}">${event.fingerprint.slice(0, 12)}</code></a></td><td>${trail}</td></tr>`;
                    })}`.text,
                  }}
                />
              </table>
              <Pager url={url} page={page} perPage={eventsPerPage} total={events.total} />
            </>
          )}

          <h2 id="deployments">Latest deployments</h2>
          {deployments.rows.length === 0 ? (
            <Empty>No deployment to {environment.name} in the last 28 days.</Empty>
          ) : (
            <>
              <DeploymentTable at={input} rows={deployments.rows} now={now} caption={`Latest deployments to ${environment.name}`} />
              <p>
                <a href={`${orgHref(input, 'deployments')}?env_name=${encodeURIComponent(environment.name)}`}>
                  All {deployments.total} deployments to {environment.name} in the last 28 days →
                </a>
              </p>
            </>
          )}
        </>
      ),
    };
  },
});
