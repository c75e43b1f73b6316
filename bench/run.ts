/**
 * `pnpm bench`: every benchmark against its baseline measured in the same run; writes
 * bench/results/latest.md and latest.json.
 *
 *   pnpm bench [-- --quick] [-- --only write|read|junit|postgres|ui|log|audit|startup|artifacts|snapshots|custom|asserts|attestations]
 *
 * --quick: short runs and smaller data, for smoke-testing (its figures are not the targets').
 * --before DIR: the start-up benchmark also launches the build in DIR (another commit's checkout,
 * built) in the same turns.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { log, track } from './support/processes.ts';
import { measuredCommit, writeReport, type Figure } from './support/report.ts';

const suites = ['write', 'read', 'junit', 'postgres', 'ui', 'log', 'audit', 'startup', 'artifacts', 'snapshots', 'custom', 'asserts', 'attestations'] as const;
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { quick: { type: 'boolean' }, only: { type: 'string' }, before: { type: 'string' } },
});
const quick = values.quick ?? false;
if (values.only !== undefined && !suites.includes(values.only as never)) throw new Error(`--only takes one of ${suites.join(', ')}`);
const wanted = (name: (typeof suites)[number]) => values.only === undefined || values.only === name;
const started = Date.now();
const commit = measuredCommit();
const figures: Figure[] = [];
const timings: Record<string, number> = {};
const tmp = mkdtempSync(join(tmpdir(), 'trailproof-bench-'));

async function timed(name: string, work: () => Promise<Figure[]>) {
  const t = Date.now();
  log(`${name}: starting`);
  try {
    figures.push(...(await work()));
  } catch (error) {
    // One suite failing does not lose the others' figures; the failure is in the table.
    log(`${name}: FAILED: ${(error as Error).stack ?? String(error)}`);
    figures.push({
      suite: name,
      name: 'suite ran',
      value: null,
      unit: '',
      baseline: null,
      ratio: null,
      target: 'completes',
      pass: false,
      note: `failed: ${(error as Error).message.slice(0, 200)}`,
    });
  }
  timings[name] = Math.round((Date.now() - t) / 1000);
  log(`${name}: done in ${timings[name]} s`);
}

/** The PostgreSQL suite in its own process under scripts/with-postgres.sh (a throwaway cluster). */
function postgres(): Promise<Figure[]> {
  const out = join(tmp, 'postgres.json');
  const script = fileURLToPath(new URL('./postgres.ts', import.meta.url));
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = track(
    spawn('bash', ['scripts/with-postgres.sh', process.execPath, '--import', 'tsx', script, out, ...(quick ? ['--quick'] : [])], {
      cwd: root,
      stdio: 'inherit',
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGTERM'), 15 * 60 * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the PostgreSQL benchmark exited ${code}`));
      resolve(JSON.parse(readFileSync(out, 'utf8')) as Figure[]);
    });
  });
}

try {
  if (wanted('write')) {
    const { writePath } = await import('./write-path.ts');
    await timed('write path (SQLite)', () => writePath({ quick, processes: 1, suite: 'write, SQLite' }));
  }
  if (wanted('read')) {
    const { readPath } = await import('./read-path.ts');
    let n = 0;
    await timed('read path (SQLite)', () =>
      readPath({ quick, processes: 1, suite: 'read, SQLite', newDatabase: async (label) => join(tmp, `${label}-${++n}.db`) }),
    );
  }
  if (wanted('junit')) {
    const { junitReaders } = await import('./junit.ts');
    await timed('JUnit reader', () => junitReaders({ quick }));
  }
  if (wanted('postgres')) await timed('PostgreSQL (2 server processes)', postgres);
  if (wanted('ui')) {
    const { uiPages } = await import('./ui.ts');
    await timed('console pages (SQLite)', () => uiPages({ quick, suite: 'ui, SQLite', newDatabase: async (label) => join(tmp, `${label}.db`) }));
  }
  if (wanted('log')) {
    const { transparencyLog } = await import('./transparency-log.ts');
    // TRAILPROOF_BENCH_LOG=write|proofs runs one half (the shared machine: a full proofs run seeds 10,000,000 leaves).
    const only = process.env.TRAILPROOF_BENCH_LOG as 'write' | 'proofs' | undefined;
    await timed('transparency log (SQLite)', () => transparencyLog({ quick, only }));
  }
  if (wanted('audit')) {
    const { auditExport } = await import('./audit-export.ts');
    await timed('audit export (SQLite)', () => auditExport({ quick }));
  }
  if (wanted('startup')) {
    const { startupTime } = await import('./startup.ts');
    await timed('start-up (SQLite)', () => startupTime({ quick, before: values.before, newDatabase: async (label) => join(tmp, `${label}.db`) }));
  }
  if (wanted('artifacts')) {
    const { attestArtifactThroughput } = await import('./artifacts.ts');
    await timed('attest artifact (SQLite)', () => attestArtifactThroughput({ quick }));
  }
  if (wanted('snapshots')) {
    const { snapshotReports } = await import('./snapshots.ts');
    await timed('snapshot reports (SQLite)', () => snapshotReports({ quick }));
    const { snapshotJudgement } = await import('./snapshot-policies.ts');
    await timed('snapshot judgement (SQLite)', () => snapshotJudgement({ quick }));
  }
  if (wanted('artifacts')) {
    const { artifactReads } = await import('./artifact-reads.ts');
    await timed('artifact reads (SQLite)', () => artifactReads({ quick, suite: 'artifacts, SQLite', newDatabase: async (label) => join(tmp, `${label}.db`) }));
  }
  if (wanted('asserts')) {
    const { asserts } = await import('./asserts.ts');
    await timed('assert artifact (SQLite)', () => asserts({ quick, newDatabase: async (label) => join(tmp, `${label}.db`) }));
  }
  if (wanted('custom')) {
    const { customTypes } = await import('./custom-types.ts');
    await timed('custom types (SQLite)', () => customTypes({ quick }));
  }
  if (wanted('attestations')) {
    const { attestationIdReads } = await import('./attestation-reads.ts');
    await timed('attestation reads by id (SQLite)', () => attestationIdReads({ quick }));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const { md } = writeReport(figures, { seconds: (Date.now() - started) / 1000, quick, only: values.only, timings, commit });
process.stdout.write(md);
