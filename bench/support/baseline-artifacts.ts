/**
 * The artifact reads' baseline: a bare Koa handler that runs the server's statements for `get
 * artifact flow@fingerprint` and `search` of the organisation `bench` (organisation, artifacts
 * by a range of their index with their flow and trail, the trail's attestations' facts, the log index,
 * the fingerprints' environment events and the environments' latest snapshots) on better-sqlite3
 * and answers the fields the server does. No router, auth, validation, query builder or logging.
 *
 *   node --import tsx bench/support/baseline-artifacts.ts FILE
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baselineDatabase, type Row } from './bench-db.ts';
import Koa from 'koa';

const { all } = baselineDatabase('baseline-artifacts.ts');

const artifactSelect = `select r.*, f.name as flow_name, t.name as trail_name, k.description as token_description,
  t.template_sha256 as trail_template_sha256, f.template_sha256 as flow_template_sha256 from artifacts r
  inner join flows f on f.id = r.flow_id inner join trails t on t.id = r.trail_id left join tokens k on k.id = r.created_by_token`;
const inFlow = `${artifactSelect} where r.organization_id = ? and r.fingerprint >= ? and r.fingerprint < ? and f.name = ? order by r.id desc limit ? + 0`;
const byKey = (key: string) => `${artifactSelect} where r.organization_id = ? and r.${key} >= ? and r.${key} < ? order by r.id desc limit ? + 0`;
const facts = (n: number) => `select id, trail_id, name, type, compliant from attestations where trail_id in (${Array(n).fill('?').join(', ')}) order by id`;
const logIndexes = (n: number) =>
  `select json_extract(record, '$.ref.id') as ref_id, max(seq) as seq from evidence_log where organization_id = ? and json_extract(record, '$.ref.table') = 'artifacts'
   and json_extract(record, '$.ref.id') in (${Array(n).fill('?').join(', ')}) group by json_extract(record, '$.ref.id')`;
const events = (n: number) => `select ev.fingerprint, ev.environment_id, e.name, ev.type, ev.snapshot_index, ev.reported_at, ev.id from environment_events ev
  inner join environments e on e.id = ev.environment_id where ev.fingerprint in (${Array(n).fill('?').join(', ')}) and e.organization_id = ? order by ev.id desc limit ? + 0`;
const latest = (n: number) =>
  `select environment_id, max(snapshot_index) as latest from snapshots where environment_id in (${Array(n).fill('?').join(', ')}) group by environment_id`;
const deployed = `select fingerprint, min(artifact_name) as artifact_name from deployments where organization_id = ? and fingerprint >= ? and fingerprint < ?
  group by fingerprint order by fingerprint limit ? + 0`;

const orgId = Number(all(`select id from organizations where name = ?`, 'bench')[0]!.id);

/** Where each fingerprint runs: its events, and the environments' latest snapshots. */
function whereabouts(fingerprints: string[]) {
  const rows = all(events(fingerprints.length), ...fingerprints, orgId, 2000).reverse();
  const envs = [...new Set(rows.map((r) => Number(r.environment_id)))];
  const latestOf = new Map(envs.length ? all(latest(envs.length), ...envs).map((r) => [Number(r.environment_id), Number(r.latest)]) : []);
  return (fp: string) => {
    const mine = rows.filter((r) => r.fingerprint === fp);
    const running = [...new Map(mine.map((r) => [r.environment_id, r])).values()].map((r) => ({
      environment_name: r.name,
      snapshot_index: latestOf.get(Number(r.environment_id)) ?? r.snapshot_index,
    }));
    return { running, history: mine.map((r) => ({ event: `Started running in ${r.name}#${r.snapshot_index} environment`, timestamp: r.reported_at })) };
  };
}

/** The trails' compliance, as the server finds it for trails without a template: from their attestations' facts. */
function states(rows: Row[]) {
  const trailIds = [...new Set(rows.map((r) => Number(r.trail_id)))];
  const failing = new Set(
    all(facts(trailIds.length), ...trailIds)
      .filter((f) => !f.compliant)
      .map((f) => Number(f.trail_id)),
  );
  return (row: Row) => (failing.has(Number(row.trail_id)) ? 'NON-COMPLIANT' : 'COMPLIANT');
}

const common = (r: Row, state: string) => ({
  id: String(r.id),
  fingerprint: r.fingerprint,
  filename: r.filename,
  flow_name: r.flow_name,
  trail_name: r.trail_name,
  template_reference_name: r.template_reference_name,
  git_commit: r.git_commit ?? '',
  git_commit_info: r.git_commit_info ? JSON.parse(r.git_commit_info) : null,
  repo_info: r.repo_info ? JSON.parse(r.repo_info) : null,
  commit_url: r.commit_url,
  build_url: r.build_url,
  html_url: `/ui/bench/flows/${r.flow_name}/artifacts/${r.fingerprint}`,
  created_at: r.created_at,
  state,
});

const app = new Koa();
app.use(async (ctx) => {
  const parts = ctx.path.split('/').map(decodeURIComponent);
  if (parts[3] === 'artifacts') {
    const [, , , , , flowName, , fp] = parts;
    const rows = all(inFlow, orgId, fp, `${fp}g`, flowName, 100);
    const row = rows[0]!;
    const stateOf = states([row]);
    all(logIndexes(1), orgId, row.id);
    const where = whereabouts([row.fingerprint])(row.fingerprint);
    ctx.body = {
      ...common(row, stateOf(row)),
      running: where.running,
      exited: [],
      history: [{ event: 'backend reported', timestamp: row.created_at }, ...where.history],
    };
  } else {
    const value = parts[6]!;
    const byFingerprint = all(byKey('fingerprint'), orgId, value, `${value}g`, 100);
    const byCommit = all(byKey('git_commit'), orgId, value, `${value}g`, 100);
    const seen = all(deployed, orgId, value, `${value}g`, 100);
    const rows = [...byFingerprint, ...byCommit];
    const stateOf = states(rows);
    const where = whereabouts([...new Set([...rows.map((r) => r.fingerprint), ...seen.map((d) => d.fingerprint)])]);
    const commits = [...new Set(byCommit.map((r) => r.git_commit))];
    ctx.body = {
      resolved_to: {
        type: 'commit',
        full_match: commits[0],
        fingerprints: { type: 'fingerprint', count: 0, matches: [] },
        commits: { type: 'commit', count: commits.length, matches: commits },
      },
      artifacts: rows.map((r) => {
        const w = where(r.fingerprint);
        return { ...common(r, stateOf(r)), has_provenance: true, running_in: w.running.map((e) => e.environment_name), exited_from: [], history: w.history };
      }),
    };
  }
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
