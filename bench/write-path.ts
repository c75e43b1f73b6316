/**
 * Write path: attest JUnit with a 50-suite payload and a 100KB attachment (distinct in every
 * request) at 64 connections, synchronous=FULL, against a bare Koa handler that parses the same
 * body and stores nothing. Afterwards every acknowledged write must be in the database.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { isPostgresUrl } from '@trailproof/server';
import { load, type LoadOptions } from './support/load.ts';
import { log, runCli, startBaseline, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { inTurns } from './support/turns.ts';

const boundary = 'trailproofBenchBoundary';

/** The request body, and the offset inside the attachment where each request stamps its counter. */
function attestationBody(dir: string): { file: string; stampAt: number; bytes: number } {
  const junit_results = Array.from({ length: 50 }, (_, i) => ({ name: `com.acme.suite.Suite${i}Test`, failures: 0, errors: 0, skipped: i % 7 === 0 ? 1 : 0, total: 40 + i, duration: 1.25 + i / 10, timestamp: 1_763_800_000 + i }));
  const data = JSON.stringify({ attestation_name: 'unit', junit_results, git_commit_info: { sha1: 'a'.repeat(40), branch: 'main' } });
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${data}\r\n--${boundary}\r\nContent-Disposition: form-data; name="attachment_file"; filename="junit.xml"\r\nContent-Type: application/xml\r\n\r\n`);
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
    const token = runCli(['token', 'create', '--org', 'bench', '--database', location]).trim();
    const body = attestationBody(dir);
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` };
    const split = (urls: string[], path: string, duration: number): LoadOptions[] => urls.map((url) => ({
      url: url + path, method: 'POST', headers, bodyFile: body.file, stampAt: body.stampAt, connections: connections / urls.length, seconds: duration,
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
    const runServers = (duration: number) => load(...split(servers.map((s) => s.url), path, duration));
    const runBaselines = (duration: number) => load(...split(baselines.map((b) => b.url), '/', duration));
    const warm = await runServers(warmup);
    await runBaselines(warmup);

    // In turns; the server's writes reach the disk after each of its turns, so that the kernel's
    // writeback of them is not charged to the baseline's turn.
    const { ours, base, cpu } = await inTurns(
      { processes: servers, load: runServers }, { processes: baselines, load: runBaselines }, seconds, rounds, () => execFileSync('sync'),
    );
    await Promise.all([...servers, ...baselines].map((p) => p.stop()));
    log(`  server: ${ours.rps.toFixed(1)} req/s, p50 ${ours.p50} ms, p99 ${ours.p99} ms, ${cpu.ours ?? '?'} us CPU per request, ${ours.ok} acknowledged, ${ours.non2xx} non-2xx, ${ours.errors} errors`);
    log(`  baseline: ${base.rps.toFixed(1)} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms, ${cpu.base ?? '?'} us CPU per request`);

    // Durability: every 2xx the load generator saw (warm-up included) is a stored attestation.
    const stored = await storedAttestations(location);
    const acknowledged = warm.ok + ours.ok;
    const ratio = round(ours.rps / base.rps, 2);
    const note = `${o.processes} process${o.processes > 1 ? 'es' : ''}, ${connections} connections, ${Math.round(body.bytes / 1024)}KB body, ${seconds} s each in ${rounds} turns`;
    return [
      { suite: o.suite, name: 'attest JUnit: throughput', value: round(ours.rps), unit: 'req/s', baseline: round(base.rps), ratio, target: '>= 0.5 of baseline', pass: ratio !== null && ratio >= 0.5, note },
      { suite: o.suite, name: 'attest JUnit: latency p99', value: ours.p99, unit: 'ms', baseline: base.p99, ratio: null, target: '–', pass: null, note: `p50 ${ours.p50} ms, baseline p50 ${base.p50} ms` },
      {
        suite: o.suite, name: 'attest JUnit: CPU per request', value: cpu.ours, unit: 'us', baseline: cpu.base, ratio: null, target: '–', pass: null,
        note: `user + system time of the ${o.processes > 1 ? 'server processes' : 'server process'} (all threads) over the measured run, per acknowledged write${isPostgresUrl(location) ? '; PostgreSQL\'s own processes not included' : ''}`,
      },
      {
        suite: o.suite, name: 'attest JUnit: acknowledged writes stored', value: stored, unit: 'rows', baseline: acknowledged, ratio: null,
        target: 'stored >= acknowledged, no errors', pass: stored >= acknowledged && ours.errors === 0 && ours.non2xx === 0,
        note: `${acknowledged} acknowledged (warm-up included), ${ours.non2xx + warm.non2xx} non-2xx, ${ours.errors + warm.errors} errors`,
      },
    ];
  } finally {
    await Promise.allSettled(stops.map((stop) => stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
