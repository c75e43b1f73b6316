/**
 * The console's pages under load: the read benchmark's organisation (10,000 environments,
 * 1,000,000 deployments; 100,000 with --quick) plus 100,000 trails (1,000 with --quick) of one flow,
 * each with a JUnit attestation of its own artifact, and an environment whose reports run 20 of
 * those artifacts. The trail, flow (with its charts), environment, deployments and environments
 * list pages, the org-wide trails view and searches at 16
 * connections, signed in with a session cookie, each against the JSON API call that returns the
 * same data, in turns (support/turns.ts): p99 under 50 ms, throughput at least 0.5 of the API's.
 * A report of the environment arrives every 100 ms meanwhile, as a busy organisation's reporters
 * send them: each is a commit, which ends what the console remembers of its reads. For context,
 * each page and API call is also timed one request at a time right after a commit.
 *
 * TRAILPROOF_BENCH_UI_DATABASE=FILE keeps the seeded database at FILE (seeding takes minutes):
 * the first run seeds it, later runs of the same size measure it again (its tokens sit in
 * FILE.tokens.json), which `node --cpu-prof --import tsx packages/server/src/cli/main.ts serve
 * --database FILE` can then serve to a profiler. TRAILPROOF_BENCH_UI_PAGES=NAME,... measures only the
 * pairs whose names hold one of the NAMEs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from './support/load.ts';
import { rotate, turnRatios } from './support/turns.ts';
import { log, runCli, startServer, type Running } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { seeded, seedSqlite } from './support/seed.ts';

export interface UiOptions {
  quick: boolean;
  suite: string;
  /** A new SQLite file path. */
  newDatabase(label: string): Promise<string>;
}

const connections = 16;
const flow = 'checkout';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const trailName = (i: number) => `build-${String(i).padStart(5, '0')}`;

/** Runs `work` for 0..count-1, `parallel` at a time. */
async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** The trails (through the API, as CI would send them) and the reports of the benchmark's environment. */
async function seedEvidence(url: string, token: string, trails: number, now: number): Promise<void> {
  const call = async (method: string, path: string, body: FormData | object) => {
    const form = body instanceof FormData;
    const res = await fetch(url + path, {
      method,
      body: form ? body : JSON.stringify(body),
      headers: { authorization: `Bearer ${token}`, ...(form ? {} : { 'content-type': 'application/json' }) },
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  };
  const form = (data: object) => {
    const f = new FormData();
    f.append('data_json', JSON.stringify(data));
    return f;
  };
  await inParallel(trails, 16, async (i) => {
    await call(
      'PUT',
      `/api/v2/trails/bench/${flow}`,
      form({
        name: trailName(i),
        git_commit_info: {
          sha1: sha(`commit ${i}`).slice(0, 40),
          branch: 'main',
          author: 'Bench <bench@example.com>',
          message: `Change ${i}`,
          timestamp: now - (trails - i) * 60,
        },
        repo_info: { name: seeded.repoName, url: `https://git.example.com/${seeded.repoName}` },
      }),
    );
    const failures = i % 7 === 0 ? 2 : 0;
    await call(
      'POST',
      `/api/v2/attestations/bench/${flow}/trail/${trailName(i)}/junit`,
      form({
        attestation_name: 'unit-tests',
        artifact_fingerprint: sha(`artifact ${i}`),
        junit_results: [{ name: 'suite', failures, errors: 0, skipped: 1, total: 120, duration: 3.5, timestamp: null }],
      }),
    );
  });
  // Three reports of 20 pods: the last 20 trails' artifacts end up running, two snapshots of events before them.
  for (const shift of [40, 30, 20])
    await call('PUT', `/api/v2/environments/bench/${encodeURIComponent(seeded.envName)}/report/K8S`, { artifacts: podsOf(trails, now, shift) });
}

/** The benchmark environment's 20 pods as its reporter sends them (the artifacts of the last 20 trails). */
function podsOf(trails: number, now: number, shift = 20) {
  return Array.from({ length: 20 }, (_, k) => {
    const i = trails - shift + k;
    return { podName: `svc-${k}`, namespace: 'prod', digests: { [`svc-${k}`]: sha(`artifact ${i}`) }, creationTimestamp: Math.floor(now) - 3600 };
  });
}

/** One report of the benchmark environment's unchanged pods: a commit (the time it was seen), no new snapshot. */
async function reportAgain(url: string, token: string, trails: number, now: number): Promise<void> {
  const res = await fetch(`${url}/api/v2/environments/bench/${encodeURIComponent(seeded.envName)}/report/K8S`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ artifacts: podsOf(trails, now) }),
  });
  if (!res.ok) throw new Error(`a report answered ${res.status}: ${await res.text()}`);
}

/**
 * Writes arriving while the pages are read, as a busy organisation's reporters send them: a report
 * every `everyMs`. Each is a commit, which ends what the console remembers of its reads.
 */
function reporting(report: () => Promise<void>, everyMs: number): { stop(): Promise<number> } {
  let running = true;
  let count = 0;
  const done = (async () => {
    while (running) {
      await report();
      count++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return count;
    },
  };
}

/** Milliseconds of each of `rounds` GETs of `path`, each right after a commit (nothing remembered): median and p99. */
async function freshReads(url: string, path: string, headers: Record<string, string>, report: () => Promise<void>, rounds: number) {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await report();
    const started = performance.now();
    const res = await fetch(url + path, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  }
  times.sort((a, b) => a - b);
  return { median: round(times[Math.floor(rounds / 2)]!, 2)!, p99: round(times[Math.min(rounds - 1, Math.floor(rounds * 0.99))]!, 2)! };
}

/** A session cookie of the console, signed in with `token`. */
async function signIn(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/ui/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`sign-in answered ${res.status}`);
  return cookie;
}

/** TRAILPROOF_BENCH_CPU_PROF=DIR: the server writes a V8 CPU profile there when it stops (support/cpu-profile.mjs). */
function profiled(): NodeJS.ProcessEnv {
  if (!process.env.TRAILPROOF_BENCH_CPU_PROF) return {};
  const profiler = fileURLToPath(new URL('./support/cpu-profile.mjs', import.meta.url));
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${profiler}` };
}

export async function uiPages(o: UiOptions): Promise<Figure[]> {
  const seconds = o.quick ? 2 : 6;
  const rows = o.quick ? 100_000 : 1_000_000;
  const trails = o.quick ? 1_000 : 100_000;
  const now = Date.now() / 1000;
  const suite = o.suite;
  let server: Running | undefined;
  try {
    const kept = process.env.TRAILPROOF_BENCH_UI_DATABASE;
    const file = kept ?? (await o.newDatabase('ui'));
    const tokensFile = `${file}.tokens.json`;
    let token: string;
    let writeToken: string;
    if (kept && existsSync(tokensFile)) {
      const saved = JSON.parse(readFileSync(tokensFile, 'utf8')) as { token: string; rows: number; trails: number };
      if (saved.rows !== rows || saved.trails !== trails)
        throw new Error(`${file} holds ${saved.rows} deployments and ${saved.trails} trails, not ${rows} and ${trails}`);
      token = saved.token;
      log(`  measuring the database kept at ${file}`);
      writeToken = (await runCli(['token', 'create', '--org', 'bench', '--database', file])).trim();
      server = await startServer(file, profiled());
    } else {
      writeToken = (await runCli(['token', 'create', '--org', 'bench', '--database', file])).trim(); // migrates, creates the organisation
      let started = Date.now();
      seedSqlite(file, rows, now);
      log(`  seeded ${rows.toLocaleString('en')} deployments in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      token = (await runCli(['token', 'create', '--org', 'bench', '--read-only', '--database', file])).trim();
      server = await startServer(file, profiled());
      started = Date.now();
      await seedEvidence(server.url, writeToken, trails, now);
      log(`  seeded ${trails.toLocaleString('en')} trails through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      if (kept) writeFileSync(tokensFile, JSON.stringify({ token, rows, trails }));
    }
    const cookie = await signIn(server.url, token);

    const env = encodeURIComponent(seeded.envName);
    const middle = trailName(Math.floor(trails / 2));
    const searchedCommit = sha(`commit ${Math.floor(trails / 2)}`).slice(0, 12);
    const pairs = [
      { name: 'trail page', page: `/ui/bench/flows/${flow}/trails/${middle}`, api: `/api/v2/trails/bench/${flow}/${middle}` },
      { name: 'flow page (with its charts)', page: `/ui/bench/flows/${flow}`, api: `/api/v2/trails/bench/${flow}` },
      { name: 'environment page', page: `/ui/bench/environments/${env}`, api: `/api/v2/environments/bench/${env}/snapshots/-1` },
      { name: 'deployments page', page: '/ui/bench/deployments', api: '/api/v2/deployments/bench' },
      // The organisation's trails across its flows, against the API's list of them.
      { name: 'org-wide trails view', page: '/ui/bench/trails', api: '/api/v2/trails/bench' },
      { name: 'org-wide trails, non-compliant only', page: '/ui/bench/trails?compliance=non-compliant', api: '/api/v2/trails/bench' },
      // A search by commit prefix finds trails (the API has no search of trails: its list of them is the pair).
      { name: 'search by commit', page: `/ui/bench/search?q=${searchedCommit}`, api: '/api/v2/trails/bench' },
      // A name that no trail or artifact starts with: a range of the names' indexes that ends at once.
      { name: 'search by a name that matches nothing', page: '/ui/bench/search?q=no-trail-is-named-so', api: '/api/v2/trails/bench' },
      // The first 25 of the 10,000 environments by name, each one's latest snapshot judged, against the API's list unpaged (its first 1,000).
      { name: 'environments list', page: '/ui/bench/environments', api: '/api/v2/environments/bench' },
    ];
    // TRAILPROOF_BENCH_UI_PAGES=deployments,trail page: only the pairs whose names hold one of these (a shorter run).
    const only = process.env.TRAILPROOF_BENCH_UI_PAGES?.split(',').map((name) => name.trim());
    const measured = only ? pairs.filter((pair) => only.some((name) => pair.name.includes(name))) : pairs;
    const target = server;
    const report = () => reportAgain(target.url, writeToken, trails, now);
    const page = (path: string) => (s: number) => load({ url: target.url + path, headers: { cookie }, connections, seconds: s });
    const api = (path: string) => (s: number) => load({ url: target.url + path, headers: { authorization: `Bearer ${token}` }, connections, seconds: s });
    const figures: Figure[] = [];
    for (const pair of measured) {
      for (const [path, headers] of [
        [pair.page, { cookie }],
        [pair.api, { authorization: `Bearer ${token}` }],
      ] as const) {
        const res = await fetch(server.url + path, { headers, redirect: 'manual' });
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      }
      await page(pair.page)(1); // warm-up (JIT, page cache)
      await api(pair.api)(1);
      // Pages and API alike are measured while a report arrives every 100 ms (each a commit).
      const reporter = reporting(report, 100);
      const { ours, base } = await rotate(
        { ours: { processes: [server], load: page(pair.page) }, base: { processes: [server], load: api(pair.api) } },
        seconds,
        2,
      ).finally(() => reporter.stop());
      const reports = await reporter.stop();
      const fresh = await freshReads(server.url, pair.page, { cookie }, report, o.quick ? 20 : 100);
      const freshApi = await freshReads(server.url, pair.api, { authorization: `Bearer ${token}` }, report, o.quick ? 20 : 100);
      log(
        `  ${pair.name}: ${ours.rps.toFixed(0)} req/s (API ${base.rps.toFixed(0)}), p50 ${ours.p50} ms, p99 ${ours.p99} ms (API ${base.p50} / ${base.p99} ms)`,
      );
      const ratio = round(ours.rps / base.rps, 2);
      const failed = ours.non2xx + ours.errors;
      figures.push(
        {
          suite,
          name: `${pair.name}: throughput against the API`,
          value: round(ours.rps),
          unit: 'req/s',
          baseline: round(base.rps),
          ratio,
          target: '>= 0.5 of the API',
          pass: ratio !== null && ratio >= 0.5 && failed === 0,
          note: [
            failed ? `${failed} failed requests` : undefined,
            `API: GET ${pair.api.replace(/\?.*$/, '')}`,
            turnRatios(ours, base),
            ours.cpu === null ? undefined : `CPU ${ours.cpu} us per page (API ${base.cpu ?? '?'} us)`,
          ]
            .filter(Boolean)
            .join('; '),
        },
        {
          suite,
          name: `${pair.name}: p99 latency`,
          value: ours.p99,
          unit: 'ms',
          baseline: base.p99,
          ratio: null,
          target: '< 50 ms',
          pass: ours.p99 < 50 && failed === 0,
          note: `p50 ${ours.p50} ms (API ${base.p50} ms); ${reports} reports (commits) arrived during the turns`,
        },
        {
          suite,
          name: `${pair.name}: one request right after a commit (median)`,
          value: fresh.median,
          unit: 'ms',
          baseline: freshApi.median,
          ratio: null,
          target: 'context',
          pass: null,
          note: `one request at a time, each right after a report's commit (nothing read before is remembered): p99 ${fresh.p99} ms (API ${freshApi.p99} ms)`,
        },
      );
    }
    return figures;
  } finally {
    await server?.stop();
  }
}
