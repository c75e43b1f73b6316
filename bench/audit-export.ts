/**
 * Exporting an audit package streams in constant memory (issue 34): a flow of 10,000 trails,
 * each begun and attested with an attachment of its own, exported by `trailproof export` from a
 * SQLite file, against a flow of 1,000 trails in the same run (and 30,000 against 10,000). The
 * figures are the export process's peak RSS (its `maxRSS` at exit) and its peak heap retained
 * after a full collection; the package is verified after, so that a broken export cannot pass
 * for a lean one.
 *
 *   npx tsx bench/audit-export.ts [--quick]      (quick: 1,000 trails against 100)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '../packages/server/src/store/index.ts';
import { track } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';

const cli = fileURLToPath(new URL('../packages/server/src/cli/main.ts', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const attachmentBytes = 4096;

/** A SQLite file with organisation `bench` and one flow of `trails` trails, each with one attested attachment of its own. */
async function seed(file: string, trails: number): Promise<void> {
  const store = await openSqliteStore(file);
  try {
    const at = Math.floor(Date.now() / 1000);
    const org = await store.ensureOrganization('bench', at);
    const flow = await store.ensureFlow(Number(org.id), 'backend', at);
    for (let start = 0; start < trails; start += 250) {
      const batch = Array.from({ length: Math.min(250, trails - start) }, (_, i) => start + i);
      await store.transaction(async (tx) => {
        for (const i of batch) await tx.upsertTrail(flow.id, { name: `t${i}`, description: 'bench' }, null, at, null);
      });
      // Together, so that the writer thread commits them in batches.
      await Promise.all(
        batch.map((i) => {
          const content = randomBytes(attachmentBytes); // incompressible, so that the package is as large as its attachments
          return store.appendAttestation({
            organizationId: Number(org.id),
            flow: 'backend',
            trail: `t${i}`,
            name: 'tests',
            type: 'generic',
            dataJson: '{"description":"bench"}',
            artifactFingerprint: null,
            attachment: { content, name: `report-${i}.bin` },
            compliant: true,
            createdBy: null,
            at,
          });
        }),
      );
    }
    await store.makeCheckpoints!();
  } finally {
    await store.close();
  }
}

/**
 * Runs `trailproof ARGS` and returns its exit status, stderr, peak RSS and peak retained heap in
 * bytes (reported by the child at exit). The retained heap is sampled after a full collection
 * every half second: what the export keeps, where RSS also counts the room V8 left itself.
 */
function runMeasured(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string; maxRss: number; maxHeap: number }> {
  const probe = [
    'let maxHeap = 0;',
    'const sample = () => { globalThis.gc(); maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed); };',
    'setInterval(sample, 500).unref();',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the probe is JavaScript source for the child, its template literal evaluated there
    'process.on("exit", () => { sample(); process.stderr.write(`\\nmaxrss ${process.resourceUsage().maxRSS}\\nmaxheap ${maxHeap}\\n`); });',
  ].join('\n');
  const child = track(
    spawn(
      process.execPath,
      ['--expose-gc', '--conditions', 'source', '--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(probe)}`, cli, ...args],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
  let stderr = '';
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.once('close', (status) => {
      const kb = Number(/maxrss (\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ status, stdout, stderr, maxRss: kb * 1024, maxHeap: Number(/maxheap (\d+)/.exec(stderr)?.[1] ?? NaN) });
    }),
  );
}

export async function auditExport(options: { quick: boolean; suite?: string }): Promise<Figure[]> {
  const suite = options.suite ?? 'audit export, SQLite';
  // The flow of 10,000 trails against 1,000, and 30,000 against it to show where the growth stops.
  const sizes = options.quick ? [100, 1_000] : [1_000, 10_000, 30_000];
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-audit-bench-'));
  try {
    const measured: Array<{ trails: number; maxRss: number; maxHeap: number; seconds: number; bytes: number }> = [];
    for (const trails of sizes) {
      const db = join(dir, `flow-${trails}.db`);
      await seed(db, trails);
      const out = join(dir, `flow-${trails}.tar.gz`);
      const started = Date.now();
      const exported = await runMeasured(['export', '--org', 'bench', '--flow', 'backend', '-o', out, '--db', db]);
      const seconds = (Date.now() - started) / 1000;
      if (exported.status !== 0) throw new Error(`export of ${trails} trails exited ${exported.status}: ${exported.stderr}`);
      const key = await runMeasured(['key', 'show', '--db', db]);
      const keyLine = /(\S+\+[0-9a-f]{8}\+\S+)/.exec(key.stdout)?.[1];
      if (!keyLine) throw new Error(`trailproof key show printed no key: ${key.stderr}`);
      measured.push({ trails, maxRss: exported.maxRss, maxHeap: exported.maxHeap, seconds, bytes: statSync(out).size });
      const check = await runMeasured(['verify-package', out, '--key', keyLine]);
      if (check.status !== 0) throw new Error(`the package of ${trails} trails does not verify: ${check.stderr}`);
    }
    const mib = (bytes: number) => round(bytes / 2 ** 20, 1);
    // Each size against the one before it: flat memory shows as a ratio near 1 at every step.
    return measured.slice(1).flatMap((l, i) => {
      const s = measured[i]!;
      /** One memory figure of the larger flow against the smaller, within 1.25x. */
      const growthFigure = (what: string, bytes: (m: typeof l) => number, note: string): Figure => {
        const ratio = round(bytes(l) / bytes(s), 2);
        return {
          suite,
          name: `export ${what}, flow of ${l.trails.toLocaleString('en')} trails`,
          value: mib(bytes(l)),
          unit: 'MiB',
          baseline: mib(bytes(s)),
          ratio,
          target: `<= 1.25x the flow of ${s.trails.toLocaleString('en')} trails`,
          pass: ratio !== null && ratio <= 1.25,
          note,
        };
      };
      return [
        growthFigure(
          'peak RSS',
          (m) => m.maxRss,
          `${mib(l.bytes)} MiB package (${l.trails * 2} records, ${l.trails} attachments of ${attachmentBytes / 1024} KiB) in ${round(l.seconds, 1)} s; ${mib(s.bytes)} MiB in ${round(s.seconds, 1)} s`,
        ),
        growthFigure(
          'retained heap (after GC, peak)',
          (m) => m.maxHeap,
          'heap used after a full collection, sampled every 0.5 s in the export process (modules and code included)',
        ),
      ];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await auditExport({ quick: process.argv.includes('--quick') });
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
