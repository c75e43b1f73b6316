/**
 * The transparency log (issue 34), on SQLite:
 *
 * - attest JUnit (the write path's request: 50 suites, a distinct 100KB attachment, 64
 *   connections) with the log against the same built server with the log's append made a no-op
 *   (support/without-transparency-log.mjs, nothing changed in the product), each on a database of
 *   its own, in turns: at most 5% slower;
 * - inclusion and consistency proofs over HTTP from a log of 10,000,000 leaves (100,000 with
 *   --quick), random leaves and sizes, 16 connections: p99 under 5 ms from a pool of one worker
 *   per core (`serve --workers N`), in turns with one server process and two floors: the same
 *   reads behind a bare node:http server (support/floor-proofs.ts), which says what this machine
 *   allows one process at all, and behind bare Koa and @koa/router (support/floor-proofs-koa.ts),
 *   which says what of the rest is the framework's. The log is seeded in bulk (records `{"seq":N}` and their
 *   subtrees), as the server would have stored them.
 */
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToken, openSqliteStore } from '@trailproof/server';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { CompactRange, decodeProof, leafHash, verifyLeafInclusion } from '../packages/server/src/transparency/index.ts';
import { load, type LoadOptions } from './support/load.ts';
import { log, runCli, startBaseline, startServer, type Running } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { rotate, turnRatios } from './support/turns.ts';
import { attestationBody, boundary } from './write-path.ts';

export async function transparencyLog(o: { quick: boolean; only?: 'write' | 'proofs' }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-log-'));
  const stops: Array<() => Promise<unknown>> = [];
  try {
    return [...(o.only === 'proofs' ? [] : await withAndWithout(o.quick, dir, stops)), ...(o.only === 'write' ? [] : await proofs(o.quick, dir, stops))];
  } finally {
    await Promise.allSettled(stops.map((stop) => stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite = 'transparency log, SQLite';

/**
 * TRAILPROOF_BENCH_CPU_PROF=DIR: the server (each of its threads) writes a V8 CPU profile into DIR,
 * or DIR/`side`, when it stops (support/cpu-profile.mjs).
 */
function profiledEnv(side?: string): NodeJS.ProcessEnv {
  const dir = process.env.TRAILPROOF_BENCH_CPU_PROF;
  if (!dir) return {};
  const profiler = fileURLToPath(new URL('./support/cpu-profile.mjs', import.meta.url));
  const into = side ? join(dir, side) : dir;
  mkdirSync(into, { recursive: true });
  return { TRAILPROOF_BENCH_CPU_PROF: into, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${profiler}` };
}

/** The environment of the baseline: the built server with the log's append a no-op in every thread. */
function withoutLogEnv(): { NODE_OPTIONS: string } {
  const hooks = fileURLToPath(new URL('./support/without-transparency-log.mjs', import.meta.url));
  return { NODE_OPTIONS: `--import=${hooks}` };
}

/** The baseline's database has no log: a renamed module would otherwise compare the server with itself. */
async function expectNoLeaves(file: string): Promise<void> {
  const store = await openSqliteStore(file);
  try {
    const organizationId = (await store.findOrganization('bench'))!.id;
    const leaves = await store.logSize(organizationId);
    if (leaves !== 0)
      throw new Error(`the baseline without the log appended ${leaves} leaves: support/without-transparency-log-hooks.mjs no longer finds the log's queries`);
  } finally {
    await store.close();
  }
}

/** Attestation throughput with the log against without it, in turns, each server on its own file. */
async function withAndWithout(quick: boolean, dir: string, stops: Array<() => Promise<unknown>>): Promise<Figure[]> {
  // 5 s turns, 12 of them: the turns of one run measured 0.69 to 1.21 of the other side's (27 Nov 2026).
  const seconds = quick ? 4 : 60;
  const rounds = quick ? 2 : 12;
  const body = attestationBody(dir);
  const sides: Record<string, { server: Running; path: string; token: string }> = {};
  const sideEnvironments: Array<[string, NodeJS.ProcessEnv]> = [
    ['log', {}],
    ['nolog', withoutLogEnv()],
  ];
  for (const [side, env] of sideEnvironments) {
    const location = join(dir, `${side}.db`);
    const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
    const profiled = profiledEnv(side);
    const imports = [env.NODE_OPTIONS, profiled.NODE_OPTIONS].filter(Boolean).join(' ');
    const server = await startServer(location, { ...profiled, ...(imports ? { NODE_OPTIONS: imports } : {}) });
    stops.push(() => server.stop());
    const begin = new FormData();
    begin.append('data_json', JSON.stringify({ name: 't1' }));
    const begun = await fetch(`${server.url}/api/v2/trails/bench/app`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: begin });
    if (begun.status !== 201) throw new Error(`begin trail answered ${begun.status}`);
    sides[side] = { server, token, path: '/api/v2/attestations/bench/app/trail/t1/junit' };
  }
  const run = (side: string) => (duration: number) => {
    const { server, token, path } = sides[side]!;
    const options: LoadOptions = {
      url: server.url + path,
      method: 'POST',
      bodyFile: body.file,
      stampAt: body.stampAt,
      connections: 64,
      seconds: duration,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
    };
    return load(options);
  };
  for (const side of ['log', 'nolog']) await run(side)(quick ? 1 : 8);
  // The warm-ups' writes reach the disk before the first turn too: unsynced, their writeback fell on
  // the first side's first turn (p99 343.57 ms there against 72-107 ms in its other turns, 27 Nov 2026).
  const sync = () => execFileSync('sync');
  sync();
  const measured = await rotate(
    {
      log: { processes: [sides.log!.server], load: run('log'), after: sync },
      nolog: { processes: [sides.nolog!.server], load: run('nolog'), after: sync },
    },
    seconds,
    rounds,
  );
  await expectNoLeaves(join(dir, 'nolog.db'));
  const ours = measured.log;
  const base = measured.nolog;
  log(
    `  with the log: ${ours.rps.toFixed(1)} req/s, p99 ${ours.p99} ms, ${ours.cpu ?? '?'} us CPU; without: ${base.rps.toFixed(1)} req/s, p99 ${base.p99} ms, ${base.cpu ?? '?'} us CPU`,
  );
  // Which turns make a side's p99 (the larger of its turns'): a tail in one turn or in all.
  log(`  p99 per turn (ms), with the log: ${ours.turnP99.join(', ')}; without: ${base.turnP99.join(', ')}`);
  const ratio = round(ours.rps / base.rps, 3);
  return [
    {
      suite,
      name: 'attest JUnit with the log: throughput',
      value: round(ours.rps),
      unit: 'req/s',
      baseline: round(base.rps),
      ratio,
      target: '>= 0.95 of without the log',
      pass: ratio !== null && ratio >= 0.95,
      note: `the same server with the log's append a no-op (support/without-transparency-log.mjs), each on its own file; 64 connections, ${seconds} s each in ${rounds} turns (${turnRatios(ours, base)}); CPU ${ours.cpu ?? '?'} us per request against ${base.cpu ?? '?'}; ${ours.non2xx + ours.errors + base.non2xx + base.errors} failed`,
    },
  ];
}

/**
 * A SQLite database whose organisation `bench` has a log of `size` leaves (records `{"seq":N}`),
 * written in bulk as the server writes them one batch at a time. Returns the database and a token.
 */
async function seededLog(dir: string, size: number): Promise<{ file: string; token: string }> {
  // TRAILPROOF_BENCH_LOG_FILE keeps the seeded database for the next run (seeding 10,000,000 leaves takes minutes).
  const kept = process.env.TRAILPROOF_BENCH_LOG_FILE;
  const file = kept ?? join(dir, 'proofs.db');
  const reused = kept !== undefined && existsSync(kept);
  const store = await openSqliteStore(file);
  let token: string;
  let organizationId: number;
  try {
    token = (await createToken(store, { org: 'bench', readOnly: true })).token;
    organizationId = (await store.findOrganization('bench'))!.id;
    if (reused) {
      const stored = await store.logSize(organizationId);
      if (stored !== size) throw new Error(`${file} holds a log of ${stored} leaves, not ${size}: remove it or name another file`);
    }
  } finally {
    await store.close();
  }
  if (reused) {
    log(`  reusing the log of ${size} leaves in ${file}`);
    return { file, token };
  }
  const db = new BetterSqlite3(file);
  try {
    db.pragma('synchronous = OFF');
    const record = db.prepare(
      `insert into evidence_log (organization_id, seq, type, record, prev_hash, hash, created_at) values (?, ?, 'bench', ?, '', '', 0)`,
    );
    const subtree = db.prepare('insert into log_subtrees (organization_id, position, hash) values (?, ?, ?)');
    // Subtrees are numbered in the order they complete (subtreePosition): as they come here.
    let position = 0;
    const range = new CompactRange();
    const started = performance.now();
    for (let from = 0; from < size; from += 100_000) {
      db.transaction(() => {
        for (let i = from; i < Math.min(size, from + 100_000); i++) {
          const text = `{"seq":${i + 1}}`;
          record.run(organizationId, i + 1, text);
          for (const s of range.append(leafHash(Buffer.from(text)))) subtree.run(organizationId, position++, s.hash);
        }
      })();
    }
    db.prepare('insert into log_trees (organization_id, size, frontier) values (?, ?, ?)').run(organizationId, range.size, Buffer.concat(range.hashes));
    log(`  seeded a log of ${size} leaves in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    db.close();
  }
  return { file, token };
}

/** Inclusion and consistency proofs over HTTP: random leaves and sizes, 16 connections. */
async function proofs(quick: boolean, dir: string, stops: Array<() => Promise<unknown>>): Promise<Figure[]> {
  const size = quick ? 100_000 : 10_000_000;
  const seconds = quick ? 4 : 20;
  const { file, token } = await seededLog(dir, size);
  const server = await startServer(file, profiledEnv('one-process'));
  stops.push(() => server.stop());
  // The same server as a pool of one worker per core (`serve --workers 2` here): what an operator who wants the machine's cores runs.
  const workers = availableParallelism();
  const pool = await startServer(file, profiledEnv('pool'), workers);
  stops.push(() => pool.stop());
  const headers = { authorization: `Bearer ${token}` };
  const base = '/api/v2/log/bench';
  // One proof checked end to end first: served against the checkpoint the server signed at start.
  const get = async (path: string) => await fetch(server.url + base + path, { headers });
  let checkpoint: Response;
  for (let tries = 0; (checkpoint = await get('/checkpoint')).status === 404 && tries < 100; tries++) await new Promise((r) => setTimeout(r, 100));
  const note = await checkpoint.text();
  const key = ((await (await get('/key')).json()) as { verifier_key: string }).verifier_key;
  const sample = (await (await get(`/proof/inclusion?index=${randomInt(0, size)}&tree_size=${size}`)).json()) as {
    index: number;
    leaf: string;
    proof: string[];
  };
  verifyLeafInclusion({ leaf: Buffer.from(sample.leaf), index: sample.index, proof: decodeProof(sample.proof), checkpoint: note, verifierKey: key });

  // The floors: the same proofs from the same file, bare node:http (support/floor-proofs.ts) and bare Koa (floor-proofs-koa.ts).
  const floor = await startBaseline('floor-proofs.ts', [file]);
  stops.push(() => floor.stop());
  const koaFloor = await startBaseline('floor-proofs-koa.ts', [file]);
  stops.push(() => koaFloor.stop());
  const figures: Figure[] = [];
  for (const [kind, pathOf] of [
    ['inclusion', () => `${base}/proof/inclusion?index=${randomInt(0, size)}&tree_size=${size}`],
    ['consistency', () => `${base}/proof/consistency?from=${randomInt(1, size)}&to=${size}`],
  ] as const) {
    const pathsFile = join(dir, `${kind}.paths`);
    writeFileSync(pathsFile, Array.from({ length: 20_000 }, pathOf).join('\n'));
    const loadOf = (target: Running) => (duration: number) => load({ url: target.url + base, headers, pathsFile, connections: 16, seconds: duration });
    for (const target of [server, pool, koaFloor, floor]) await loadOf(target)(quick ? 1 : 5);
    const measured = await rotate(
      {
        server: { processes: [server], load: loadOf(server) },
        pool: { processes: [pool], load: loadOf(pool) },
        koa: { processes: [koaFloor], load: loadOf(koaFloor) },
        floor: { processes: [floor], load: loadOf(floor) },
      },
      seconds,
      2,
    );
    const [ours, pooled, koa, bare] = [measured.server, measured.pool, measured.koa, measured.floor];
    const line = (m: typeof ours) =>
      `${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.cpu ?? '?'} us CPU per request, ${m.non2xx + m.errors} failed`;
    log(`  ${kind} proofs at ${size} leaves: one process ${line(ours)}; ${workers} workers ${line(pooled)}; Koa floor ${line(koa)}; floor ${line(bare)}`);
    const about = `${size.toLocaleString('en')} leaves, random ${kind === 'inclusion' ? 'leaves' : 'older sizes'}, 16 connections, ${seconds} s in 2 turns beside the other server and the floors`;
    const failed = (m: typeof ours) => m.non2xx + m.errors;
    figures.push(
      {
        suite,
        name: `${kind} proof over HTTP, \`serve --workers ${workers}\`: latency p99`,
        value: pooled.p99,
        unit: 'ms',
        baseline: bare.p99,
        ratio: null,
        target: '< 5 ms p99',
        pass: pooled.p99 < 5 && failed(pooled) === 0,
        note: `${about}; ${round(pooled.rps)} req/s, p50 ${pooled.p50} ms; ${pooled.cpu ?? '?'} us CPU per request (the pool's processes, all threads); ${failed(pooled)} failed; baseline: the floor's p99`,
      },
      {
        suite,
        name: `${kind} proof over HTTP, one process: latency p99`,
        value: ours.p99,
        unit: 'ms',
        baseline: bare.p99,
        ratio: null,
        target: 'context',
        pass: null,
        note: `${about}; ${round(ours.rps)} req/s, p50 ${ours.p50} ms; ${ours.cpu ?? '?'} us CPU per request (server process, all threads); ${failed(ours)} failed; baseline: the floor's p99`,
      },
      {
        suite,
        name: `${kind} proof framework floor (bare Koa and @koa/router, the same reads): latency p99`,
        value: koa.p99,
        unit: 'ms',
        baseline: bare.p99,
        ratio: null,
        target: 'context',
        pass: null,
        note: `support/floor-proofs-koa.ts on the same file, in the same turns: ${round(koa.rps)} req/s, p50 ${koa.p50} ms, ${koa.cpu ?? '?'} us CPU per request; ${failed(koa)} failed; baseline: the floor's p99`,
      },
      {
        suite,
        name: `${kind} proof floor (bare node:http, the same reads): latency p99`,
        value: bare.p99,
        unit: 'ms',
        baseline: null,
        ratio: null,
        target: 'context',
        pass: null,
        note: `support/floor-proofs.ts on the same file, in the same turns: ${round(bare.rps)} req/s, p50 ${bare.p50} ms, ${bare.cpu ?? '?'} us CPU per request; ${bare.non2xx + bare.errors} failed`,
      },
    );
  }
  return figures;
}
