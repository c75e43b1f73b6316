/**
 * The organisation overview: each flow with its latest trail's compliance, each environment
 * with what runs in it and whether a compliant trail attested it, and the latest deployments.
 * A bounded number of queries: a page of flows and of environments, one evaluation of their
 * trails, one page of deployments.
 */
import { TrailEvaluator } from '../../domain/evaluate.ts';
import { fingerprintEvidence } from '../../domain/running.ts';
import type { EnvironmentNow } from '../../store/index.ts';
import { Compliance } from '../components/compliance.tsx';
import { actionStep, createEnvironmentExample, Empty } from '../components/empty.tsx';
import { Pager } from '../components/table.tsx';
import { Time } from '../components/time.tsx';
import { artifactPageHref, environmentPageHref, flowHref, orgHref, queryNumber, trailPageHref } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';

const flowsPerPage = 25;
const environmentsShown = 20;
const latestDeployments = 10;

export const overviewPage = definePage({
  path: '/:org',
  async render(input) {
    const { store, org, now, query } = input;
    const page = queryNumber(query, 'page', 1, 1, 1_000_000);
    const evaluator = new TrailEvaluator(store, now);
    const [flows, environments, deployments] = await Promise.all([
      store.flowsWithLatestTrail(org.id, (page - 1) * flowsPerPage, flowsPerPage),
      store.environmentsNow(org.id, 0, environmentsShown),
      store.listDeployments(org.id, { start: 0, end: now, offset: 0, limit: latestDeployments }),
    ]);
    const trails = flows.items.flatMap((f) => (f.latestTrail ? [f.latestTrail] : []));
    const compliance = await evaluator.complianceOf(trails);
    const latest = new Map(trails.map((t, i) => [t.flowName, { trail: t, compliant: compliance[i]!.compliance.is_compliant }]));
    const running = await fingerprintEvidence(
      store,
      evaluator,
      org.id,
      environments.items.flatMap((e) => e.artifacts.map((a) => a.fingerprint)),
    );
    const items = deployments.rows;

    return {
      title: org.name,
      content: (
        <>
          <h1>{org.name}</h1>
          <section aria-labelledby="environments">
            <h2 id="environments">Environments</h2>
            {environments.items.length ? (
              <>
                {environments.items.map((e) => (
                  <EnvironmentSummary input={input} environment={e} running={running} />
                ))}
                <table>
                  <thead>
                    <tr>
                      <th>Environment</th>
                      <th>Type</th>
                      <th>State</th>
                      <th class="num">Running</th>
                      <th>Last change</th>
                      <th>Last report</th>
                    </tr>
                  </thead>
                  <tbody>
                    {environments.items.map((e) => (
                      <tr>
                        <td>
                          <a href={environmentPageHref(input, e.name)}>{e.name}</a>
                        </td>
                        <td>{e.type}</td>
                        <td>{e.state === null ? <Compliance compliant={null} label="NOT REPORTED" /> : <Compliance compliant={e.state} />}</td>
                        <td class="num">{e.artifacts.length}</td>
                        <td>
                          <Time at={e.lastChangedAt} now={now} />
                        </td>
                        <td>
                          <Time at={e.lastReportedAt} now={now} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <p>
                  {environments.total > environments.items.length ? (
                    <span class="muted">
                      The first {environments.items.length} of {environments.total} environments, by name.{' '}
                    </span>
                  ) : null}
                  <a href={orgHref(input, 'environments')}>All {environments.total} environments with their policies and compliance →</a>
                </p>
              </>
            ) : (
              <Empty example={createEnvironmentExample(input.apiBase, org.name)}>
                No environments yet. Create one, then report what runs in it (<code>kosli snapshot k8s</code> or a PUT of its report).
              </Empty>
            )}
          </section>

          <section aria-labelledby="flows">
            <h2 id="flows">Flows</h2>
            {flows.items.length ? (
              <>
                <table>
                  <thead>
                    <tr>
                      <th>Flow</th>
                      <th>Latest trail</th>
                      <th>Compliance</th>
                      <th>When</th>
                    </tr>
                  </thead>
                  <tbody>
                    {flows.items.map((f) => {
                      const last = latest.get(f.name);
                      return (
                        <tr>
                          <td>
                            <a href={flowHref(input, f.name)}>{f.name}</a>
                            {f.description ? <div class="muted">{f.description}</div> : null}
                          </td>
                          <td>
                            {last ? <a href={trailPageHref(input, f.name, last.trail.name)}>{last.trail.name}</a> : <span class="muted">no trail yet</span>}
                          </td>
                          <td>{last ? <Compliance compliant={last.compliant} /> : <Compliance compliant={null} />}</td>
                          <td>{last ? <Time at={last.trail.createdAt} now={now} /> : null}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
                <Pager url={input.url} page={page} perPage={flowsPerPage} total={flows.total} />
              </>
            ) : (
              <Empty example={actionStep(org.name, 'backend')}>
                No flows yet. A CI job begins a trail (and its flow) and attests its tests, for example with the GitHub Action:
              </Empty>
            )}
          </section>

          <section aria-labelledby="deployments">
            <h2 id="deployments">Latest deployments</h2>
            {items.length ? (
              <>
                <table>
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Environment</th>
                      <th>Artifact</th>
                      <th>Fingerprint</th>
                      <th>Trail</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((d) => {
                      // As the API links a deployment to its trail: only when a trail of a flow attested the artifact.
                      const trail = d.trail_name !== null && d.flow_name !== null ? { flow: d.flow_name, trail: d.trail_name } : undefined;
                      return (
                        <tr>
                          <td>
                            <Time at={d.deployed_at} now={now} />
                          </td>
                          <td>
                            <a href={environmentPageHref(input, d.env_name)}>{d.env_name}</a> <span class="muted">#{d.snapshot_index}</span>
                          </td>
                          <td>{d.artifact_name}</td>
                          <td class="mono" title={d.fingerprint}>
                            <a href={artifactPageHref(input, d.fingerprint)}>{d.fingerprint.slice(0, 12)}</a>
                          </td>
                          <td>
                            {trail ? (
                              <a href={trailPageHref(input, trail.flow, trail.trail)}>
                                {trail.flow} / {trail.trail}
                              </a>
                            ) : (
                              <span class="muted">no trail attested it</span>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
                <p>
                  <a href={`${input.base}/${encodeURIComponent(org.name)}/deployments`}>All {deployments.total} deployments</a>
                </p>
              </>
            ) : (
              <Empty>No deployments yet: an environment's report that starts an artifact records one.</Empty>
            )}
          </section>
        </>
      ),
    };
  },
});

/** "production: 12 artifacts running, 11 attested by a compliant trail, 1 not." */
function EnvironmentSummary({ input, environment, running }: { input: PageInput; environment: EnvironmentNow; running: Map<string, { compliant: boolean }> }) {
  const count = environment.artifacts.length;
  const compliant = environment.artifacts.filter((a) => running.get(a.fingerprint)?.compliant).length;
  return (
    <p class="summary">
      <a href={environmentPageHref(input, environment.name)}>
        <strong>{environment.name}</strong>
      </a>
      {environment.snapshotIndex === null
        ? ': nothing reported yet.'
        : `: ${count} ${count === 1 ? 'artifact' : 'artifacts'} running, ${compliant} attested by a compliant trail, ${count - compliant} not.`}
    </p>
  );
}
