/**
 * JUnit reader: our streaming reader (`readJunitFile` from @trailproof/junit) against
 * fast-xml-parser and xml2js (whole file in memory, as the popular JUnit actions read reports)
 * on a generated ~200MB Surefire-style report, a ~20MB one and 10,000 small files. Each reader
 * on each input runs in its own process (bundled with esbuild and run by plain `node`, as the
 * action ships), with a time limit; a reader that fails (out of memory, string too long, time
 * limit) is recorded as failed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { generateBigReport, generateSmallReports } from './support/junit-generate.ts';
import { log, track } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';

const readers = ['trailproof', 'fast-xml-parser', 'xml2js'] as const;
type Reader = (typeof readers)[number] | 'none';

interface Outcome {
  ms?: number;
  maxRssMB?: number;
  cases?: number;
  failed?: string;
}

/** Bundles support/junit-worker.ts into one ESM file for plain `node`. */
async function bundleWorker(dir: string): Promise<string> {
  const outfile = join(dir, 'junit-worker.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./support/junit-worker.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    // Bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __benchRequire } from 'node:module';\nconst require = __benchRequire(import.meta.url);" },
  });
  return outfile;
}

function run(worker: string, reader: Reader, input: string, limitSeconds: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = track(spawn(process.execPath, ['--max-old-space-size=8192', worker, reader, input], { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (err = (err + c).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), limitSeconds * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ failed: `time limit (${limitSeconds} s)` });
      try {
        resolve(JSON.parse(out) as Outcome);
      } catch {
        const reason =
          /heap out of memory|Invalid string length|Cannot create a string longer|[A-Za-z]*Error: [^\n]*/.exec(err)?.[0] ?? `exit ${code ?? signal}`;
        resolve({ failed: reason.slice(0, 120) });
      }
    });
  });
}

/** Readers timed in turns; xml2js, far behind, once. */
const timedInTurns = new Set<Reader>(['trailproof', 'fast-xml-parser']);

/**
 * One reader's runs on one input as one outcome: failed if any run failed; else the median time
 * and the highest peak RSS.
 */
function medianRun(outcomes: Outcome[]): Outcome {
  const failed = outcomes.find((x) => x.failed !== undefined);
  if (failed) return failed;
  const times = outcomes.map((x) => x.ms!).sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], maxRssMB: Math.max(...outcomes.map((x) => x.maxRssMB!)), cases: outcomes[0]!.cases };
}

export async function junitReaders(o: { quick: boolean }): Promise<Figure[]> {
  const rounds = o.quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-junit-'));
  const suite = 'JUnit reader';
  const figures: Figure[] = [];
  try {
    const worker = await bundleWorker(dir);
    const bigMB = o.quick ? 50 : 200;
    const smallCount = o.quick ? 2_000 : 10_000;
    const inputs: Array<{ label: string; path: string; limit: number; rssTarget: boolean }> = [];
    for (const mb of [20, bigMB]) {
      const path = join(dir, `TEST-big-${mb}MB.xml`);
      const g = await generateBigReport(path, mb * 1e6);
      log(`  generated ${path}: ${(g.bytes / 1e6).toFixed(0)}MB, ${g.cases.toLocaleString('en')} test cases`);
      inputs.push({ label: `${mb}MB report`, path, limit: mb * 1.5 + 30, rssTarget: true });
    }
    const small = generateSmallReports(join(dir, 'small'), smallCount);
    log(`  generated ${smallCount.toLocaleString('en')} small reports, ${(small.bytes / smallCount / 1024).toFixed(1)}KB each on average`);
    inputs.push({ label: `${smallCount.toLocaleString('en')} small files`, path: join(dir, 'small'), limit: 120, rssTarget: false });

    const floor = await run(worker, 'none', dir, 30);
    for (const input of inputs) {
      // Our reader and fast-xml-parser, whose times make the ratio, run in turns (`rounds` each,
      // the median time kept), so that a drift of the shared machine weighs on both alike.
      const runs = {} as Record<(typeof readers)[number], Outcome[]>;
      for (let turn = 0; turn < rounds; turn++) {
        for (const reader of readers) {
          if (turn > 0 && !timedInTurns.has(reader)) continue;
          const g = await run(worker, reader, input.path, input.limit);
          (runs[reader] ??= []).push(g);
          log(
            `  ${input.label}, ${reader}: ${g.failed ? `failed: ${g.failed}` : `${(g.ms! / 1000).toFixed(2)} s, peak RSS ${g.maxRssMB!.toFixed(0)}MB, ${g.cases} cases`}`,
          );
        }
      }
      const got = Object.fromEntries(readers.map((r) => [r, medianRun(runs[r])])) as Record<(typeof readers)[number], Outcome>;
      const ours = got.trailproof;
      const fxp = got['fast-xml-parser'];
      const seconds = (x: Outcome) => (x.ms === undefined ? null : round(x.ms / 1000, 2));
      const speedup = ours.ms !== undefined && fxp.ms !== undefined ? round(fxp.ms / ours.ms, 2) : null;
      const agree = readers.every((r) => got[r].failed !== undefined || got[r].cases === ours.cases);
      // The speed-up of each turn (ours and fast-xml-parser ran one after the other in it).
      const turns = runs.trailproof.map((x, i) => {
        const theirs = runs['fast-xml-parser'][i]?.ms;
        return x.ms === undefined || theirs === undefined ? '–' : (theirs / x.ms).toFixed(2);
      });
      figures.push({
        suite,
        name: `${input.label}: our reader, time`,
        value: seconds(ours),
        unit: 's',
        baseline: seconds(fxp),
        ratio: speedup,
        target: '>= 2x faster than fast-xml-parser',
        pass: ours.failed ? false : fxp.failed ? true : speedup !== null && speedup >= 2,
        note: ours.failed
          ? `failed: ${ours.failed}`
          : `ratio = fast-xml-parser time / ours${rounds > 1 ? ` (median of ${rounds} runs each, in turns; turns ${turns.join(', ')})` : ''}${fxp.failed ? `; fast-xml-parser failed: ${fxp.failed}` : ''}${agree ? '' : '; readers disagree on the number of test cases'}`,
      });
      for (const reader of ['fast-xml-parser', 'xml2js'] as const) {
        const g = got[reader];
        figures.push({
          suite,
          name: `${input.label}: ${reader}, time`,
          value: seconds(g),
          unit: 's',
          baseline: null,
          ratio: null,
          target: '–',
          pass: null,
          note: g.failed ? `failed: ${g.failed}` : `peak RSS ${round(g.maxRssMB!, 0)}MB`,
        });
      }
      figures.push({
        suite,
        name: `${input.label}: our reader, peak RSS`,
        value: ours.maxRssMB === undefined ? null : round(ours.maxRssMB, 0),
        unit: 'MB',
        baseline: fxp.maxRssMB === undefined ? null : round(fxp.maxRssMB, 0),
        ratio: null,
        target: input.rssTarget ? '< 100 MB' : '–',
        pass: input.rssTarget ? ours.maxRssMB !== undefined && ours.maxRssMB < 100 : null,
        note: `baseline = fast-xml-parser; a worker that reads nothing peaks at ${round(floor.maxRssMB ?? 0, 0)}MB; ${ours.cases ?? '?'} test cases read`,
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
