/**
 * Read path: one organisation with 10,000 environments, 50 of which hold 1,000,000 deployments
 * (100,000 with --quick). Each list query at 16 connections against the server and against a
 * bare Koa handler running the same SQL (support/baseline-read.ts), in turns (measurePair).
 * Then total_count scaling: the default-window query at 10k, 100k and 1M rows, in turns.
 */
import { isDeepStrictEqual } from 'node:util';
import { isPostgresUrl } from '@trailproof/server/internals';
import { readPathQueries } from './support/read-queries.ts';
import { load, type LoadResult } from './support/load.ts';
import { readFigures, rotate, type Side } from './support/turns.ts';
import { log, runCli, startBaseline, startServer, type Running } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { seedPostgres, seedSqlite } from './support/seed.ts';

export interface ReadPathOptions {
  quick: boolean;
  suite: string;
  /** Server (and baseline) processes sharing the load. */
  processes: number;
  /** A new empty database: a SQLite file path or a PostgreSQL URL. */
  newDatabase(label: string): Promise<string>;
}

const connections = 16;

/** Migrates (through the real CLI), seeds, and returns a read-only token of `bench`. */
async function seed(location: string, rows: number, now: number): Promise<string> {
  await runCli(['token', 'create', '--org', 'bench', '--database', location]); // migrates, creates the organisation
  const started = Date.now();
  if (isPostgresUrl(location)) await seedPostgres(location, rows, now);
  else seedSqlite(location, rows, now);
  log(`  seeded ${rows.toLocaleString('en')} deployments in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return (await runCli(['token', 'create', '--org', 'bench', '--read-only', '--database', location])).trim();
}

/** Starts `count` processes of the server, or of the baseline, on `location`. */
function start(kind: 'server' | 'baseline', location: string, count: number): Promise<Running[]> {
  const backend = isPostgresUrl(location) ? 'postgres' : 'sqlite';
  return Promise.all(Array.from({ length: count }, () => (kind === 'server' ? startServer(location) : startBaseline('baseline-read.ts', [backend, location]))));
}

/** Load spread evenly over the processes (16 connections in all), summed. */
function measure(targets: Running[], path: string, token: string, seconds: number): Promise<LoadResult> {
  return load(
    ...targets.map((t) => ({
      url: t.url + path,
      headers: { authorization: `Bearer ${token}` },
      connections: connections / targets.length,
      seconds,
    })),
  );
}

/** The server's and the baseline's figures for one query, measured in turns (support/turns.ts), 2 turns each. */
function measurePair(servers: Running[], baselines: Running[], path: string, token: string, seconds: number) {
  return rotate(
    {
      ours: { processes: servers, load: (s) => measure(servers, path, token, s) },
      base: { processes: baselines, load: (s) => measure(baselines, path, token, s) },
    },
    seconds,
    2,
  );
}

/** The server and the baseline answer the same body (figures, items, links); null when they do. */
async function sameAnswer(server: string, baseline: string, path: string, token: string): Promise<string | null> {
  const get = async (url: string) => (await fetch(url + path, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<Record<string, any>>;
  const [a, b] = await Promise.all([get(server), get(baseline)]);
  // A window that ends "now" may lose its oldest deployment between the two requests.
  if (typeof a.total_count !== 'number' || Math.abs(a.total_count - b.total_count) > 1) return `total_count ${a.total_count} vs ${b.total_count}`;
  if (a.total_count === b.total_count && !isDeepStrictEqual(a, b))
    return `different body: ${JSON.stringify(a).slice(0, 200)} vs ${JSON.stringify(b).slice(0, 200)}`;
  return null;
}

export async function readPath(o: ReadPathOptions): Promise<Figure[]> {
  const seconds = o.quick ? 2 : 5;
  const sizes = o.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const rows = sizes[sizes.length - 1]!;
  const now = Date.now() / 1000;
  const running: Running[] = [];
  const stopAll = () => Promise.all(running.splice(0).map((r) => r.stop()));
  const figures: Figure[] = [];
  const suite = o.suite;
  try {
    const main = await o.newDatabase(`read_${rows}`);
    const token = await seed(main, rows, now);
    const servers = await start('server', main, o.processes);
    running.push(...servers);
    const baselines = await start('baseline', main, o.processes);
    running.push(...baselines);

    const queries = readPathQueries(now);
    await measure(servers, queries[0]!.path, token, 2); // warm-up (JIT, page cache)
    await measure(baselines, queries[0]!.path, token, 2);
    const mismatches: string[] = [];
    for (const q of queries) {
      const mismatch = await sameAnswer(servers[0]!.url, baselines[0]!.url, q.path, token);
      if (mismatch) mismatches.push(`${q.name}: ${mismatch}`);
      const { ours, base } = await measurePair(servers, baselines, q.path, token, seconds);
      log(
        `  ${q.name}: ${ours.rps.toFixed(0)} req/s (baseline ${base.rps.toFixed(0)}), p50 ${ours.p50} ms, p99 ${ours.p99} ms (baseline ${base.p50} / ${base.p99} ms)`,
      );
      const cpuNote =
        ours.cpu === null
          ? undefined
          : `CPU ${ours.cpu} us per request (baseline ${base.cpu ?? '?'} us)${isPostgresUrl(main) ? ", PostgreSQL's own not included" : ''}`;
      figures.push(...readFigures(suite, q.name, ours, base, cpuNote));
    }
    figures.push({
      suite,
      name: 'baseline answers as the server does (the same body)',
      value: queries.length - mismatches.length,
      unit: 'queries',
      baseline: null,
      ratio: null,
      target: `all ${queries.length}`,
      pass: mismatches.length === 0,
      note: mismatches.length ? mismatches.join('; ') : undefined,
    });
    // The baselines are done (on PostgreSQL their pools would hold connections the next servers need).
    await Promise.all(baselines.map((b) => b.stop()));
    running.splice(0, running.length, ...running.filter((r) => !baselines.includes(r)));

    // total_count scaling: the default window (28 of 365 days, ~7.7% of the rows) at each table
    // size, the sizes measured in turns (as server and baseline are) so that the machine's drift
    // weighs on each alike; the largest size's server is the one measured above, still running.
    const scaled: Partial<Record<string, Side>> = {};
    for (const size of sizes.slice(0, -1)) {
      const location = await o.newDatabase(`read_${size}`);
      const sizeToken = await seed(location, size, now);
      const started = await start('server', location, o.processes);
      running.push(...started);
      scaled[String(size)] = { processes: started, load: (s) => measure(started, queries[0]!.path, sizeToken, s) };
    }
    scaled[String(rows)] = { processes: servers, load: (s) => measure(servers, queries[0]!.path, token, s) };
    // Every size warmed (JIT, page cache) just before the turns, none left idle while another's
    // database was seeded (measured: the first seconds after 40 s of idleness had a p99 up to
    // twice that of the seconds after).
    for (const side of Object.values(scaled)) await side!.load(o.quick ? 1 : 3);
    const bySize = await rotate(scaled as Record<string, Side>, seconds, 2);
    const byRows = new Map<number, LoadResult>(sizes.map((size) => [size, bySize[String(size)]!]));
    await stopAll();
    for (const [size, r] of byRows) {
      log(`  default window at ${size.toLocaleString('en')} rows: p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.rps.toFixed(0)} req/s`);
      figures.push({
        suite,
        name: `total_count scaling: default window at ${size.toLocaleString('en')} deployments, p99`,
        value: r.p99,
        unit: 'ms',
        baseline: null,
        ratio: null,
        target: '< 20 ms',
        pass: r.p99 < 20,
        note: `p50 ${r.p50} ms, ${round(r.rps, 0)} req/s, ~${Math.round((size * 28) / 365).toLocaleString('en')} rows in the window`,
      });
    }
    const small = byRows.get(sizes[0]!)!;
    const large = byRows.get(rows)!;
    const growth = round(large.p50 / small.p50, 2);
    figures.push({
      suite,
      name: `total_count scaling: p50 at ${rows.toLocaleString('en')} / p50 at ${sizes[0]!.toLocaleString('en')} deployments`,
      value: growth,
      unit: 'x',
      baseline: null,
      ratio: null,
      target: '<= 1.5 (flat)',
      pass: growth !== null && growth <= 1.5,
      note: `throughput ${round(large.rps, 0)} vs ${round(small.rps, 0)} req/s`,
    });
    return figures;
  } finally {
    await Promise.allSettled(running.map((r) => r.stop()));
  }
}
