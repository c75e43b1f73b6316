/**
 * Reading a 1,000-pod K8S snapshot (what `kosli get snapshot` and `assert snapshot` call), judged
 * against three attached policies, against the same snapshot in an environment with no policy
 * (judged by provenance alone, as before policies): same server, same database, same pods, in
 * turns. Target: at most twice the cost, so at least 0.5 of the throughput. The fleet is
 * bench/snapshots.ts's: 600 images, 550 reported as artifacts of 50 trails.
 * TRAILPROOF_BENCH_CPU_PROF=DIR has the server write a V8 CPU profile there as it stops.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profiled } from './asserts.ts';
import { load } from './support/load.ts';
import { log, runCli, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { rotate, turnRatios } from './support/turns.ts';
import { reportBody, seed } from './snapshots.ts';

const suite = 'snapshots, SQLite';
const schema = '_schema: https://kosli.com/schemas/policy/environment/v1\n\nartifacts:\n';
/** Three policies of four to five rules each, with conditions and exceptions to evaluate per artifact. */
const policies: Record<string, string> = {
  provenance: `${schema}  provenance:\n    required: true\n    exceptions:\n      - if: \${{ matches(artifact.name, "^registry.example/vendor-") }}\n  trail-compliance:\n    required: false\n`,
  checks: `${schema}  attestations:\n    - name: checks\n      type: generic\n    - name: '*'\n      type: generic\n      if: \${{ flow.name == "fleet" }}\n    - name: scan\n      type: snyk\n      if: \${{ flow.tags.risk == "high" }}\n`,
  trails: `${schema}  trail-compliance:\n    required: true\n    exceptions:\n      - if: \${{ artifact.name in ["registry.example/legacy:1", "registry.example/legacy:2"] }}\n      - if: \${{ exists(flow.tags.exempt) }}\n  provenance:\n    required: true\n`,
};

export async function snapshotJudgement(o: { quick: boolean }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-judgement-'));
  let stop: (() => Promise<unknown>) | undefined;
  try {
    const seconds = o.quick ? 4 : 40;
    const rounds = o.quick ? 2 : 8;
    const location = join(dir, 'judgement.db');
    const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
    const server = await startServer(location, profiled());
    stop = () => server.stop();
    await seed(server, location, token);
    const call = async (method: string, path: string, body: BodyInit, json = true) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) };
      const answer = await fetch(server.url + path, { method, headers, body });
      if (answer.status !== 200 && answer.status !== 201) throw new Error(`${method} ${path} answered ${answer.status}: ${await answer.text()}`);
      return answer;
    };
    await call('PUT', '/api/v2/environments/bench', JSON.stringify({ name: 'judged', type: 'K8S' }));
    for (const [name, yaml] of Object.entries(policies)) {
      const form = new FormData();
      form.append('payload', JSON.stringify({ name, description: '', comment: '', type: 'env' }));
      form.append('policy_file', new Blob([yaml]), `${name}.yml`);
      await call('PUT', '/api/v2/policies/bench', form, false);
    }
    await call('POST', '/api/v2/environments/bench/judged/policies', JSON.stringify({ policy_names: Object.keys(policies) }));
    const report = readFileSync(reportBody(dir).file, 'utf8');
    for (const env of ['prod', 'judged']) await call('PUT', `/api/v2/environments/bench/${env}/report/K8S`, report);
    const read = async (env: string) => (await (await call('GET', `/api/v2/snapshots/bench/${env}/-1`, undefined as never)).json()) as SnapshotAnswer;
    const [plain, judged] = [await read('prod'), await read('judged')];
    if (plain.applied_policies.length !== 0 || judged.applied_policies.length !== 3 || judged.artifacts.length < 600)
      throw new Error(`the sides are not what they should be: ${plain.applied_policies.length} and ${judged.applied_policies.length} policies applied`);
    const run = (env: string) => (duration: number) =>
      load({ url: `${server.url}/api/v2/snapshots/bench/${env}/-1`, connections: 4, seconds: duration, headers: { authorization: `Bearer ${token}` } });
    for (const env of ['judged', 'prod']) await run(env)(o.quick ? 1 : 5);
    const measured = await rotate({ judged: { processes: [server], load: run('judged') }, plain: { processes: [server], load: run('prod') } }, seconds, rounds);
    const ours = measured.judged;
    const base = measured.plain;
    log(`  judged by 3 policies: ${ours.rps.toFixed(1)} reads/s, p99 ${ours.p99} ms; by provenance alone: ${base.rps.toFixed(1)} reads/s, p99 ${base.p99} ms`);
    const ratio = round(ours.rps / base.rps, 3);
    const compliant = (s: SnapshotAnswer) => s.artifacts.filter((a) => a.compliant).length;
    return [
      {
        suite,
        name: '1,000-pod snapshot read judged by three policies: throughput',
        value: round(ours.rps),
        unit: 'req/s',
        baseline: round(base.rps),
        ratio,
        target: '>= 0.5 of the same snapshot with no policy (cost at most twice)',
        pass: ratio !== null && ratio >= 0.5,
        note: `GET /snapshots/bench/{env}/-1 on one server and database: 1,000 pods of 600 images (550 reported as artifacts of 50 trails), the judged environment with 3 policies (13 rules, conditions and exceptions), the other with none; ${compliant(judged)} and ${compliant(plain)} artifacts compliant; 4 connections, ${seconds} s each in ${rounds} turns (${turnRatios(ours, base)}); p99 ${ours.p99} ms against ${base.p99} ms; CPU ${ours.cpu ?? '?'} us per read against ${base.cpu ?? '?'}; ${ours.non2xx + ours.errors + base.non2xx + base.errors} failed`,
      },
    ];
  } finally {
    await stop?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface SnapshotAnswer {
  applied_policies: unknown[];
  artifacts: { compliant: boolean }[];
}
