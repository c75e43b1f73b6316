/**
 * Attest artifact against attest generic on one server (SQLite, synchronous=FULL), in turns, at
 * 16 connections: each request a new artifact (its fingerprint stamped with a counter) or a new
 * generic attestation (its name stamped), both to one trail. Target: artifact at least 0.8 of
 * generic's throughput. Writes bench/results/artifacts.md with the machine's load.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from './support/load.ts';
import { log, runCli, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { rotate, turnRatios, type Side } from './support/turns.ts';

const boundary = 'trailproofBenchBoundary';
const stampDigits = '0'.repeat(16);

/** A body file and where its 16-digit counter goes. */
function bodyFile(dir: string, name: string, text: string, marker: string): { file: string; stampAt: number } {
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, stampAt: Buffer.byteLength(text.slice(0, text.indexOf(marker))) };
}

export async function attestArtifactThroughput(o: { quick: boolean }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-artifacts-'));
  const location = join(dir, 'artifacts.db');
  const seconds = o.quick ? 4 : 12;
  const rounds = o.quick ? 2 : 4;
  const connections = 16;
  try {
    const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
    const server = await startServer(location);
    try {
      const begin = new FormData();
      begin.append('data_json', JSON.stringify({ name: 't1', git_commit_info: { sha1: 'a'.repeat(40) } }));
      const begun = await fetch(`${server.url}/api/v2/trails/bench/app`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: begin });
      if (begun.status !== 201) throw new Error(`begin trail answered ${begun.status}`);
      const commit = { sha1: 'a'.repeat(40), message: 'Build it', author: 'Ada', timestamp: 1_763_800_000, branch: 'main' };
      const artifact = bodyFile(
        dir,
        'artifact.json',
        JSON.stringify({
          fingerprint: `${stampDigits}${'b'.repeat(48)}`,
          filename: 'app.tgz',
          git_commit: commit.sha1,
          git_commit_info: commit,
          build_url: 'https://ci.example.com/1',
          commit_url: 'https://git.example.com/c',
          repo_url: 'https://git.example.com/app',
          template_reference_name: 'app',
          trail_name: 't1',
        }),
        stampDigits,
      );
      const data = JSON.stringify({ attestation_name: `g${stampDigits}`, is_compliant: true, git_commit_info: commit });
      const generic = bodyFile(
        dir,
        'generic.body',
        `--${boundary}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${data}\r\n--${boundary}--\r\n`,
        stampDigits,
      );
      const auth = { authorization: `Bearer ${token}` };
      const run = (path: string, body: { file: string; stampAt: number }, contentType: string) => (duration: number) =>
        load({
          url: server.url + path,
          method: 'POST',
          headers: { ...auth, 'content-type': contentType },
          bodyFile: body.file,
          stampAt: body.stampAt,
          connections,
          seconds: duration,
        });
      const sides: Record<'artifact' | 'generic', Side> = {
        generic: { processes: [server], load: run('/api/v2/attestations/bench/app/trail/t1/generic', generic, `multipart/form-data; boundary=${boundary}`) },
        artifact: { processes: [server], load: run('/api/v2/artifacts/bench/app', artifact, 'application/json') },
      };
      const before = loadavg();
      await sides.generic.load(2);
      await sides.artifact.load(2);
      const measured = await rotate(sides, seconds, rounds);
      const after = loadavg();
      const a = measured.artifact;
      const g = measured.generic;
      const ratio = a.rps / g.rps;
      log(
        `  artifact ${a.rps.toFixed(1)} req/s (p99 ${a.p99} ms, ${a.non2xx} non-2xx), generic ${g.rps.toFixed(1)} req/s (p99 ${g.p99} ms, ${g.non2xx} non-2xx): ${ratio.toFixed(2)}`,
      );
      const note = `${turnRatios(a, g)}; load average ${before[0]!.toFixed(2)} before, ${after[0]!.toFixed(2)} after`;
      writeFileSync(
        fileURLToPath(new URL('./results/artifacts.md', import.meta.url)),
        [
          '# Attest artifact against attest generic (SQLite, one server process)',
          '',
          `Command: \`pnpm bench -- --only artifacts${o.quick ? ' --quick' : ''}\`; ${new Date().toISOString()}; 16 connections, ${rounds} turns of each side, ${seconds} s per side in all.`,
          `Machine shared with other sessions: load average (1 min) ${before[0]!.toFixed(2)} before, ${after[0]!.toFixed(2)} after, on ${2} cores.`,
          '',
          '| side | req/s | p50 ms | p99 ms | non-2xx | errors |',
          '| --- | --- | --- | --- | --- | --- |',
          `| attest artifact (new fingerprint each) | ${a.rps.toFixed(1)} | ${a.p50} | ${a.p99} | ${a.non2xx} | ${a.errors} |`,
          `| attest generic (new name each) | ${g.rps.toFixed(1)} | ${g.p50} | ${g.p99} | ${g.non2xx} | ${g.errors} |`,
          '',
          `Ratio artifact / generic: **${ratio.toFixed(2)}** (target at least 0.8); ${turnRatios(a, g)}.`,
          '',
        ].join('\n'),
      );
      return [
        {
          suite: 'artifacts, SQLite',
          name: 'attest artifact throughput',
          value: round(a.rps),
          unit: 'req/s',
          baseline: round(g.rps),
          ratio: round(ratio, 2),
          target: '>= 0.8 of attest generic',
          pass: ratio >= 0.8 && a.non2xx === 0 && a.errors === 0,
          note,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
