/**
 * `kosli assert artifact FP --environment prod` against three policies of ten rules each:
 *
 * - over HTTP: `GET /api/v2/asserts/bench/fingerprint/FP?environment_name=prod` with the CLI's
 *   headers at 16 connections against the built server (`serve`), 1,000 artifacts asserted in
 *   turn, against a bare Koa handler running the same statements on better-sqlite3
 *   (support/baseline-asserts.ts), in turns, after a pass that records every verdict once (the
 *   steady state of a gate asserting what it judged before);
 * - in process on the same file: the domain's `assertArtifact` recorded against the same without
 *   the verdict's lookup or write (the recording's cost, which HTTP cannot switch off), in turns.
 *
 * Evidence seeded by SQL with its chain records and log leaves (support/seed-asserts.ts):
 * 1,000,000 artifacts in 100,000 trails with 4 attestations each (20,000 in 2,000 with --quick);
 * policies, environment and attachment made through the API.
 * TRAILPROOF_BENCH_ASSERTS_DATABASE=FILE keeps the seeded database at FILE for the next run;
 * TRAILPROOF_BENCH_CPU_PROF=DIR has the measured server write a V8 CPU profile there as it stops.
 *
 *   node --import tsx bench/asserts.ts [--quick]      also `pnpm bench -- --only asserts`
 */
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '@trailproof/server';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { goMultipart, userAgent } from '../packages/server/src/kosli-cli/go-wire.ts';
import { assertArtifact } from '../packages/server/src/operations/assert-judgement.ts';
import { load } from './support/load.ts';
import { log, runCli, startBaseline, startServer, type Running } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { fingerprintOf, seedAssertEvidence } from './support/seed-asserts.ts';
import { readFigures, rotate, turnRatios } from './support/turns.ts';

const connections = 16;
const environment = 'prod';
const policies = ['policy-0', 'policy-1', 'policy-2'];
const header = '_schema: https://kosli.com/schemas/policy/environment/v1\n';
/** Ten rules: provenance, trail compliance with an exception, and eight attestation rules, four with an `if`. */
export const policyYaml = (p: number) =>
  `${header}artifacts:\n  provenance:\n    required: true\n  trail-compliance:\n    required: true\n    exceptions:\n      - if: \${{ flow.name == "legacy-${p}" }}\n  attestations:\n${Array.from(
    { length: 8 },
    (_, i) =>
      `    - name: check-${i}\n      type: generic\n${i % 2 ? `      if: \${{ matches(artifact.name, "^app-[0-9]+$") and flow.tags.tier != "t${p}" }}\n` : ''}`,
  ).join('')}`;

/** The database: seeded (or found seeded at TRAILPROOF_BENCH_ASSERTS_DATABASE) with the policies attached through a server. */
export async function prepared(file: string, trails: number, perTrail: number): Promise<string> {
  const reused = existsSync(file);
  const token = (await runCli(['token', 'create', '--org', 'bench', '--database', file])).trim(); // migrates, creates the organisation
  const artifacts = trails * perTrail;
  if (reused) {
    const db = new BetterSqlite3(file, { readonly: true });
    const [stored, attached] = [
      (db.prepare('select count(*) as n from artifacts').get() as { n: number }).n,
      (db.prepare(`select policies from environments where name = ?`).get(environment) as { policies: string } | undefined)?.policies,
    ];
    db.close();
    if (stored !== artifacts || attached !== JSON.stringify(policies))
      throw new Error(
        `${file} holds ${stored} artifacts and policies ${attached}, not ${artifacts} and ${JSON.stringify(policies)}: remove it or name another file`,
      );
    log(`  reusing ${artifacts.toLocaleString('en')} artifacts in ${file}`);
    return token;
  }
  const started = performance.now();
  seedAssertEvidence(file, trails, perTrail);
  log(
    `  seeded ${artifacts.toLocaleString('en')} artifacts in ${trails.toLocaleString('en')} trails in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const server = await startServer(file);
  try {
    const send = async (method: string, path: string, body: { json?: unknown; form?: ReturnType<typeof goMultipart> }) => {
      const answer = await fetch(`${server.url}/api/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': body.form?.contentType ?? 'application/json' },
        body: body.form ? new Uint8Array(body.form.body) : JSON.stringify(body.json),
      });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
    };
    for (const [p, name] of policies.entries()) {
      const payload = { name, description: '', comment: '', type: 'env' };
      const file = { type: 'file', name: 'policy_file', filename: `${name}.yml`, bytes: Buffer.from(policyYaml(p)) } as const;
      await send('PUT', '/policies/bench', { form: goMultipart([{ type: 'field', name: 'payload', content: payload }, file]) });
    }
    await send('PUT', '/environments/bench', { json: { name: environment, type: 'K8S', description: '', require_provenance: false } });
    await send('POST', `/environments/bench/${environment}/policies`, { json: { policy_names: policies } });
  } finally {
    await server.stop();
  }
  return token;
}

/** The environment that has the server profile itself (support/cpu-profile.mjs), when TRAILPROOF_BENCH_CPU_PROF names a folder. */
export function profiled(): NodeJS.ProcessEnv {
  if (!process.env.TRAILPROOF_BENCH_CPU_PROF) return {};
  const profiler = fileURLToPath(new URL('./support/cpu-profile.mjs', import.meta.url));
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${profiler}` };
}

/** `work` with `inFlight` calls at a time for `seconds`: calls per second and the latency percentiles. */
async function measure(work: (i: number) => Promise<unknown>, inFlight: number, seconds: number) {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await work(next++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2));
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

/** Recorded against not recorded, in process on the seeded file (as operations/assert-artifact.ts keeps a verdict). */
async function recording(file: string, asserted: string[], seconds: number, rounds: number) {
  const store = await openSqliteStore(file);
  try {
    const org = (await store.findOrganization('bench'))!;
    const request = (i: number) => ({
      org: { id: org.id, name: 'bench' },
      fingerprint: asserted[(i * 7919) % asserted.length]!,
      environment: { name: environment, policies },
    });
    const at = { org: 'bench', apiBase: 'http://bench/api/v2' };
    const recorded = async (verdict: { compliant: boolean }, text: string, sha256: string) =>
      (await store.findVerdictLeaves(org.id, [sha256]))[0] ??
      store.transaction((tx) =>
        tx.recordVerdict({ organizationId: org.id, fingerprint: '', verdict: text, sha256, compliant: verdict.compliant, createdBy: null, at: 5 }),
      );
    const now = Math.floor(Date.now() / 1000);
    const sides = {
      recorded: (i: number) => assertArtifact(store, now, at, request(i), recorded),
      'not recorded': (i: number) => assertArtifact(store, now, at, request(i), async () => null),
    } as const;
    for (let i = 0; i < asserted.length; i++) await sides.recorded(i);
    const results: Record<keyof typeof sides, Array<Awaited<ReturnType<typeof measure>>>> = { recorded: [], 'not recorded': [] };
    const order = Object.entries(sides) as Array<[keyof typeof sides, (i: number) => Promise<unknown>]>;
    // Each round starts with the other side, so that neither always runs first.
    for (let round = 0; round < rounds; round++)
      for (const [name, work] of round % 2 ? [...order].reverse() : order) results[name].push(await measure(work, connections, seconds));
    const mean = (name: keyof typeof sides) => results[name].reduce((s, r) => s + r.rps, 0) / rounds;
    const turns = results.recorded.map((r, i) => (r.rps / results['not recorded'][i]!.rps).toFixed(2)).join(', ');
    return { recorded: mean('recorded'), off: mean('not recorded'), turns };
  } finally {
    await store.close();
  }
}

export async function asserts(o: { quick: boolean; newDatabase?: (label: string) => Promise<string> }): Promise<Figure[]> {
  const [trails, perTrail, seconds, rounds] = o.quick ? [2_000, 10, 4, 2] : [100_000, 10, 12, 4];
  const suite = 'asserts, SQLite';
  const scratch = await mkdtemp(join(tmpdir(), 'trailproof-asserts-'));
  const running: Running[] = [];
  try {
    const file = process.env.TRAILPROOF_BENCH_ASSERTS_DATABASE ?? (o.newDatabase ? await o.newDatabase('asserts') : join(scratch, 'asserts.db'));
    const token = await prepared(file, trails, perTrail);
    // 1,000 artifacts spread over all the trails, each asserted in turn.
    const asserted = Array.from({ length: 1_000 }, (_, k) => fingerprintOf(Math.floor((k * trails * perTrail) / 1_000) + (k % perTrail)));
    const pathsFile = join(scratch, 'asserts.paths');
    writeFileSync(pathsFile, asserted.map((fp) => `/api/v2/asserts/bench/fingerprint/${fp}?environment_name=${environment}\n`).join(''));
    // The headers `kosli assert artifact` sends (Go net/http's, kosli-cli/go-wire.ts).
    const headers = { 'user-agent': userAgent(), authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' };
    const server = await startServer(file, profiled());
    running.push(server);
    const baseline = await startBaseline('baseline-asserts.ts', [file]);
    running.push(baseline);
    // Every verdict recorded once (and each side's answer checked) before anything is measured.
    for (const fp of asserted) {
      const answer = await fetch(`${server.url}/api/v2/asserts/bench/fingerprint/${fp}?environment_name=${environment}`, { headers });
      if (answer.status !== 200) throw new Error(`assert: ${answer.status} ${await answer.text()}`);
      const body = (await answer.json()) as { log_index: number | null; policy_evaluations: unknown[] };
      if (body.log_index === null || body.policy_evaluations.length !== 3) throw new Error(`assert answered ${JSON.stringify(body).slice(0, 300)}`);
    }
    const bare = await fetch(`${baseline.url}/api/v2/asserts/bench/fingerprint/${asserted[0]}?environment_name=${environment}`, { headers });
    if (bare.status !== 200) throw new Error(`baseline: ${bare.status} ${await bare.text()}`);
    const at = (r: Running, s: number) => load({ url: r.url, headers, pathsFile, connections, seconds: s });
    await at(server, 2); // warm-up (JIT, page cache)
    await at(baseline, 2);
    const { ours, base } = await rotate(
      { ours: { processes: [server], load: (s) => at(server, s) }, base: { processes: [baseline], load: (s) => at(baseline, s) } },
      seconds,
      rounds,
    );
    log(
      `  assert artifact --environment: ${ours.rps.toFixed(0)} req/s (baseline ${base.rps.toFixed(0)}), p50 ${ours.p50} ms, p99 ${ours.p99} ms (baseline ${base.p50} / ${base.p99} ms); CPU ${ours.cpu} / ${base.cpu} us per request; ${turnRatios(ours, base)}`,
    );
    await Promise.allSettled(running.splice(0).map((r) => r.stop()));
    const name = 'assert artifact --environment (3 policies x 10 rules)';
    const figures = readFigures(suite, name, ours, base, `CPU ${ours.cpu ?? '?'} us per request (baseline ${base.cpu ?? '?'} us)`);
    for (const f of figures) f.note = `${(trails * perTrail).toLocaleString('en')} artifacts, 1,000 asserted in turn, ${connections} connections; ${f.note}`;

    const kept = await recording(file, asserted, o.quick ? 1 : 3, o.quick ? 4 : 8);
    log(`  in process: recorded ${kept.recorded.toFixed(0)}/s, not recorded ${kept.off.toFixed(0)}/s (turns ${kept.turns})`);
    const ratio = round(kept.recorded / kept.off, 2);
    figures.push({
      suite: `${suite}, in process`,
      name: 'assert artifact recorded vs not recorded',
      value: round(kept.recorded),
      unit: 'calls/s',
      baseline: round(kept.off),
      ratio,
      target: '>= 0.95 of baseline',
      pass: ratio !== null && ratio >= 0.95,
      note: `the same ${(trails * perTrail).toLocaleString('en')} artifacts, 1,000 asserted, ${connections} in flight, each verdict recorded once before, then looked up; turns ${kept.turns}`,
    });
    return figures;
  } finally {
    await Promise.allSettled(running.map((r) => r.stop()));
    await rm(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  for (const f of await asserts({ quick: values.quick ?? false })) console.log(JSON.stringify(f));
}
