/**
 * The asserts benchmark's baseline: a bare Koa handler that runs the statements the server runs
 * for `GET /api/v2/asserts/bench/fingerprint/FP?environment_name=ENV` once its token, organisation,
 * log leaves and verdict are remembered (the environment, the fingerprint's reports with their
 * flows and trails, the latest versions of its policies, its trails' attestations' facts and
 * artifacts, their decisions' controls) on better-sqlite3, and answers the flows it read with
 * the policies named. No router, auth, validation, query builder, judging, verdict or logging.
 *
 *   node --import tsx bench/support/baseline-asserts.ts FILE
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baselineDatabase } from './bench-db.ts';
import Koa from 'koa';

const { all } = baselineDatabase('baseline-asserts.ts');
const list = (n: number) => Array(n).fill('?').join(', ');

// The server's statements as Kysely compiles them (seen through better-sqlite3's prepare).
const environmentOf = `select * from "environments" where "organization_id" = ? and "name" = ?`;
const reports = `select "r"."id", "r"."fingerprint", "r"."trail_id", "t"."name" as "trail_name", "f"."name" as "flow_name", "r"."repo_name", "r"."git_commit",
  "r"."commit_url", "r"."filename", "r"."template_reference_name", "t"."template_sha256" as "trail_template_sha256", "f"."template_sha256" as "flow_template_sha256",
  "f"."tags" as "flow_tags" from "artifacts" as "r" inner join "trails" as "t" on "t"."id" = "r"."trail_id" inner join "flows" as "f" on "f"."id" = "r"."flow_id"
  where "r"."organization_id" = ? and "r"."fingerprint" in (?)`;
const versions = (n: number) => `select "v"."id", "p"."name", "v"."version", "v"."policy_yaml", "v"."sha256" from "policy_versions" as "v"
  inner join "policies" as "p" on "p"."id" = "v"."policy_id" where "p"."organization_id" = ? and "p"."name" in (${list(n)})
  and "v"."version" = (select max("w"."version") as "m" from "policy_versions" as "w" where "w"."policy_id" = "p"."id")`;
const facts = (n: number) => `select "id", "trail_id", "name", "type", "compliant", "artifact_fingerprint", "created_at",
  case when data like ? escape '!' or data like ? escape '!' then ("data" -> '$.target_artifacts') end as "targets" from "attestations" where "trail_id" in (${list(n)}) order by "id"`;
const trailArtifacts = (n: number) => `select "id", "trail_id", "fingerprint", "template_reference_name" from "artifacts" where "trail_id" in (${list(n)})`;
const controls = (n: number) => `select "id", ("data" ->> '$.control') as "control" from "attestations" where "trail_id" in (${list(n)}) and "type" = ?`;

const orgId = Number(all(`select id from organizations where name = ?`, 'bench')[0]!.id);

const app = new Koa();
app.use(async (ctx) => {
  const parts = ctx.path.split('/').map(decodeURIComponent);
  const fingerprint = parts[6]!;
  const env = all(environmentOf, orgId, ctx.query.environment_name)[0]!;
  const names = JSON.parse(env.policies) as string[];
  const rows = all(reports, orgId, fingerprint);
  const policies = all(versions(names.length), orgId, ...names);
  const trails = [...new Set(rows.map((r) => Number(r.trail_id)))];
  const attestations = all(facts(trails.length), '%"target!_artifacts"%', '%\\u%', ...trails);
  all(trailArtifacts(trails.length), ...trails);
  all(controls(trails.length), ...trails, 'decision');
  ctx.body = {
    compliant: false,
    scope: 'environment',
    environment: env.name,
    fingerprint,
    html_url: `/ui/bench/flows/${rows[0]?.flow_name}/artifacts/${fingerprint}`,
    flows: rows.map((r) => ({
      flow: r.flow_name,
      trail: r.trail_name,
      artifact_name: r.template_reference_name,
      compliance_status: {
        status: 'NON-COMPLIANT',
        is_compliant: false,
        attestations_statuses: attestations
          .filter((a) => Number(a.trail_id) === Number(r.trail_id))
          .map((a) => ({ attestation_name: a.name, attestation_type: a.type, is_compliant: a.compliant === 1, targets: a.targets && JSON.parse(a.targets) })),
      },
    })),
    policy_evaluations: policies.map((p) => ({ policy_name: p.name, policy_version: p.version, policy_sha256: p.sha256 })),
    log_index: null,
  };
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
