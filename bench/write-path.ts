/**
 * Write path: attest JUnit with a 50-suite payload and a 100KB attachment (distinct in every
 * request) at 64 connections, synchronous=FULL, against a bare Koa handler that parses the same
 * body and stores nothing. Afterwards every acknowledged write must be in the database.
 *
 * A third side runs in the same turns, for context: the storage floor (support/floor-write.ts),
 * the bare handler that also stores each attachment durably and nothing else, built as the
 * server's store is (on PostgreSQL in a database of its own, as many processes as the server).
 * Its throughput bounds what the server's design can reach here.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetterSqlite3 } from '@trailproof/server/testing';
import pg from 'pg';
import { isPostgresUrl } from '@trailproof/server/internals';
import { load, type LoadOptions } from './support/load.ts';
import { log, runCli, startBaseline, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { rotate, turnRatios, type Measured, type Side } from './support/turns.ts';

export const boundary = 'trailproofBenchBoundary';

/** The request body, and the offset inside the attachment where each request stamps its counter. */
export function attestationBody(dir: string): { file: string; stampAt: number; bytes: number } {
  const junit_results = Array.from({ length: 50 }, (_, i) => ({
    name: `com.acme.suite.Suite${i}Test`,
    failures: 0,
    errors: 0,
    skipped: i % 7 === 0 ? 1 : 0,
    total: 40 + i,
    duration: 1.25 + i / 10,
    timestamp: 1_763_800_000 + i,
  }));
  const data = JSON.stringify({ attestation_name: 'unit', junit_results, git_commit_info: { sha1: 'a'.repeat(40), branch: 'main' } });
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${data}\r\n--${boundary}\r\nContent-Disposition: form-data; name="attachment_file"; filename="junit.xml"\r\nContent-Type: application/xml\r\n\r\n`,
  );
  const attachment = Buffer.from(randomBytes(50 * 1024).toString('hex')); // 100KB of text
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, attachment, tail]);
  const file = join(dir, 'attest.body');
  writeFileSync(file, body);
  return { file, stampAt: head.length + 64, bytes: body.length };
}

export interface WritePathOptions {
  quick: boolean;
  /** PostgreSQL URL; SQLite in a temporary file when absent. */
  database?: string;
  /** Server (and baseline) processes sharing the load. */
  processes: number;
  suite: string;
  /** PostgreSQL: an empty database for the storage floor (with `database`). */
  floorDatabase?: string;
}

/** Attestations stored, counted straight from the database (read-only for SQLite, after the server stopped). */
async function storedAttestations(location: string): Promise<number> {
  if (isPostgresUrl(location)) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      return Number((await client.query('select count(*) as n from attestations')).rows[0].n);
    } finally {
      await client.end();
    }
  }
  const db = new BetterSqlite3(location, { readonly: true });
  try {
    return Number((db.prepare('select count(*) as n from attestations').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

export async function writePath(o: WritePathOptions): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-write-'));
  const location = o.database ?? join(dir, 'write.db');
  const seconds = o.quick ? 4 : 10;
  // Long enough for V8 to finish optimising the hot code (measured: with 2 s, its compiler threads
  // still took a tenth of the server's CPU during the measured run).
  const warmup = o.quick ? 1 : 8;
  const rounds = 2;
  const connections = 64;
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
    const body = attestationBody(dir);
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` };
    const split = (urls: string[], path: string, duration: number): LoadOptions[] =>
      urls.map((url) => ({
        url: url + path,
        method: 'POST',
        headers,
        bodyFile: body.file,
        stampAt: body.stampAt,
        connections: connections / urls.length,
        seconds: duration,
      }));

    const servers = await Promise.all(Array.from({ length: o.processes }, () => startServer(location)));
    stops.push(...servers.map((s) => () => s.stop()));
    const begin = new FormData();
    begin.append('data_json', JSON.stringify({ name: 't1' }));
    const begun = await fetch(`${servers[0]!.url}/api/v2/trails/bench/app`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: begin });
    if (begun.status !== 201) throw new Error(`begin trail answered ${begun.status}`);
    const path = '/api/v2/attestations/bench/app/trail/t1/junit';
    const baselines = await Promise.all(Array.from({ length: o.processes }, () => startBaseline('baseline-write.ts')));
    stops.push(...baselines.map((b) => () => b.stop()));
    const floors = isPostgresUrl(location)
      ? o.floorDatabase
        ? await Promise.all(Array.from({ length: o.processes }, () => startBaseline('floor-write.ts', ['postgres', o.floorDatabase!])))
        : []
      : [await startBaseline('floor-write.ts', [join(dir, 'floor.db')])];
    stops.push(...floors.map((f) => () => f.stop()));
    const runServers = (duration: number) =>
      load(
        ...split(
          servers.map((s) => s.url),
          path,
          duration,
        ),
      );
    const runOthers = (others: typeof baselines) => (duration: number) =>
      load(
        ...split(
          others.map((b) => b.url),
          '/',
          duration,
        ),
      );
    const warm = await runServers(warmup);
    for (const others of [floors, baselines]) if (others.length) await runOthers(others)(warmup);

    // In turns; what was written reaches the disk after each turn that wrote (and after the
    // warm-ups), so that the kernel's writeback of it is not charged to the next side's turn.
    const sync = () => execFileSync('sync');
    sync();
    const sides: Record<string, Side> = {
      ours: { processes: servers, load: runServers, after: sync },
      ...(floors.length ? { floor: { processes: floors, load: runOthers(floors), after: sync } } : {}),
      base: { processes: baselines, load: runOthers(baselines) },
    };
    const measured = await rotate(sides, seconds, rounds);
    const ours = measured.ours!;
    const base = measured.base!;
    const floor = measured.floor ?? null;
    await Promise.all([...servers, ...floors, ...baselines].map((p) => p.stop()));
    log(
      `  server: ${ours.rps.toFixed(1)} req/s, p50 ${ours.p50} ms, p99 ${ours.p99} ms, ${ours.cpu ?? '?'} us CPU per request, ${ours.ok} acknowledged, ${ours.non2xx} non-2xx, ${ours.errors} errors`,
    );
    if (floor)
      log(
        `  storage floor: ${floor.rps.toFixed(1)} req/s, p50 ${floor.p50} ms, p99 ${floor.p99} ms, ${floor.cpu ?? '?'} us CPU per request, ${floor.non2xx + floor.errors} failed`,
      );
    log(`  baseline: ${base.rps.toFixed(1)} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms, ${base.cpu ?? '?'} us CPU per request`);

    // Durability: every 2xx the load generator saw (warm-up included) is a stored attestation.
    const stored = await storedAttestations(location);
    const acknowledged = warm.ok + ours.ok;
    const ratio = round(ours.rps / base.rps, 2);
    const note = `${o.processes} process${o.processes > 1 ? 'es' : ''}, ${connections} connections, ${Math.round(body.bytes / 1024)}KB body, ${seconds} s each in ${rounds} turns (${turnRatios(ours, base)})`;
    return [
      {
        suite: o.suite,
        name: 'attest JUnit: throughput',
        value: round(ours.rps),
        unit: 'req/s',
        baseline: round(base.rps),
        ratio,
        target: '>= 0.5 of baseline',
        pass: ratio !== null && ratio >= 0.5,
        note,
      },
      {
        suite: o.suite,
        name: 'attest JUnit: latency p99',
        value: ours.p99,
        unit: 'ms',
        baseline: base.p99,
        ratio: null,
        target: '–',
        pass: null,
        note: `p50 ${ours.p50} ms, baseline p50 ${base.p50} ms`,
      },
      {
        suite: o.suite,
        name: 'attest JUnit: CPU per request',
        value: ours.cpu,
        unit: 'us',
        baseline: base.cpu,
        ratio: null,
        target: '–',
        pass: null,
        note: `user + system time of the ${o.processes > 1 ? 'server processes' : 'server process'} (all threads) over the measured run, per acknowledged write${isPostgresUrl(location) ? "; PostgreSQL's own processes not included" : ''}`,
      },
      {
        suite: o.suite,
        name: 'attest JUnit: acknowledged writes stored',
        value: stored,
        unit: 'rows',
        baseline: acknowledged,
        ratio: null,
        target: 'stored >= acknowledged, no errors',
        pass: stored >= acknowledged && ours.errors === 0 && ours.non2xx === 0,
        note: `${acknowledged} acknowledged (warm-up included), ${ours.non2xx + warm.non2xx} non-2xx, ${ours.errors + warm.errors} errors`,
      },
      ...(floor ? floorFigures(o.suite, isPostgresUrl(location), ours, floor, base) : []),
    ];
  } finally {
    await Promise.allSettled(stops.map((stop) => stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The storage floor against the baseline (what a store built as the server's reaches here when it
 * stores nothing but the attachments), and the server against the floor (what storing evidence,
 * not just bytes, costs): context for the throughput target, with no target of their own.
 */
function floorFigures(suite: string, postgres: boolean, ours: Measured, floor: Measured, base: Measured): Figure[] {
  const failed = floor.non2xx + floor.errors;
  const how = postgres
    ? "the bare handler that also stores each attachment durably in PostgreSQL, and nothing else, through the server's own code (its schema, batchedWrites: a transaction per batch of what arrives together; putBlobs: one multi-row INSERT)"
    : "the bare handler that also stores each attachment durably in SQLite, and nothing else (group commit on a writer thread, the server's checkpointer)";
  const cpu = postgres ? 'CPU of its processes' : 'CPU';
  return [
    {
      suite,
      name: 'storage floor: throughput',
      value: round(floor.rps),
      unit: 'req/s',
      baseline: round(base.rps),
      ratio: round(floor.rps / base.rps, 2),
      target: '–',
      pass: null,
      note: `${turnRatios(floor, base)}; ${how}; ${cpu} ${floor.cpu ?? '?'} us per request${postgres ? " (PostgreSQL's own not included)" : ''}; ${failed} failed`,
    },
    {
      suite,
      name: 'attest JUnit: throughput against the storage floor',
      value: round(ours.rps),
      unit: 'req/s',
      baseline: round(floor.rps),
      ratio: round(ours.rps / floor.rps, 2),
      target: '–',
      pass: null,
      note: `${turnRatios(ours, floor)}; what the server does beyond storing the bytes: auth, validation, attestation rows, hash chain, request log; CPU ${ours.cpu ?? '?'} us per request against ${floor.cpu ?? '?'}`,
    },
  ];
}
