/**
 * Custom attestations (issue 50): `attest custom` of a 100 KB document judged by a type with a
 * JSON Schema and three jq rules, against `attest generic` carrying the same document (as
 * user_data) on the same server, in turns at 16 connections. The target: at least 0.5 of generic's
 * throughput. Every custom attestation must have been judged compliant (the rules really ran).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { load } from './support/load.ts';
import { log, runCli, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { rotate, turnRatios, type Side } from './support/turns.ts';

const boundary = 'trailproofBenchBoundary';

/** A scanner's report of about 100 KB: 1,000 findings. */
export function scanDocument(): Record<string, unknown> {
  const findings = Array.from({ length: 1000 }, (_, i) => ({
    id: `CVE-2026-${10000 + i}`,
    severity: ['low', 'medium', 'high'][i % 3],
    package: `pkg-${i}`,
    note: 'x'.repeat(40),
  }));
  return { scanner: { name: 'trivy', version: '0.58.0' }, critical: 0, findings };
}

const rules = ['.critical == 0', '[.findings[] | select(.severity == "critical")] | length == 0', 'all(.findings[]; .id | startswith("CVE-"))'];
const schema = {
  type: 'object',
  required: ['scanner', 'critical', 'findings'],
  properties: { critical: { type: 'integer' }, findings: { type: 'array', items: { type: 'object', required: ['id'] } } },
};

/** TRAILPROOF_BENCH_CPU_PROF=DIR: the server (each of its threads) writes a V8 CPU profile there when it stops (support/cpu-profile.mjs). */
function profiled(): NodeJS.ProcessEnv {
  if (!process.env.TRAILPROOF_BENCH_CPU_PROF) return {};
  const profiler = fileURLToPath(new URL('./support/cpu-profile.mjs', import.meta.url));
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${profiler}` };
}

function bodyFile(dir: string, name: string, data: unknown): string {
  const file = join(dir, `${name}.body`);
  writeFileSync(file, `--${boundary}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${JSON.stringify(data)}\r\n--${boundary}--\r\n`);
  return file;
}

export async function customTypes(o: { quick: boolean }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-custom-'));
  const location = join(dir, 'custom.db');
  const seconds = o.quick ? 4 : 12;
  const connections = 16;
  try {
    const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
    const server = await startServer(location, profiled());
    try {
      const auth = { authorization: `Bearer ${token}` };
      const form = (data: unknown, file?: [string, string]) => {
        const f = new FormData();
        f.append('data_json', JSON.stringify(data));
        if (file) f.append(file[0], new Blob([file[1]]), 'schema.json');
        return f;
      };
      const begun = await fetch(`${server.url}/api/v2/trails/bench/app`, { method: 'PUT', headers: auth, body: form({ name: 't1' }) });
      const typed = await fetch(`${server.url}/api/v2/custom-attestation-types/bench`, {
        method: 'POST',
        headers: auth,
        body: form({ name: 'scan', evaluator: { content_type: 'jq', rules } }, ['type_schema', JSON.stringify(schema)]),
      });
      if (begun.status !== 201 || typed.status !== 201) throw new Error(`begin trail ${begun.status}, create type ${typed.status}`);
      const document = scanDocument();
      const headers = { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` };
      const side = (path: string, file: string): Side => ({
        processes: [server],
        load: (duration) =>
          load({
            url: `${server.url}/api/v2/attestations/bench/app/trail/t1/${path}`,
            method: 'POST',
            headers,
            bodyFile: file,
            connections,
            seconds: duration,
          }),
      });
      const sides = {
        generic: side('generic', bodyFile(dir, 'generic', { attestation_name: 'scan', is_compliant: true, user_data: document })),
        custom: side('custom', bodyFile(dir, 'custom', { attestation_name: 'scan', type_name: 'scan', attestation_data: document })),
      };
      log(`custom types: document ${JSON.stringify(document).length} bytes; warming up`);
      for (const s of Object.values(sides)) await s.load(o.quick ? 1 : 3);
      const measured = await rotate(sides, seconds, o.quick ? 2 : 3);
      const ratio = measured.custom.rps / measured.generic.rps;
      await server.stop();
      const db = new BetterSqlite3(location, { readonly: true });
      const judged = db.prepare("select compliant, count(*) as n from attestations where type = 'custom:scan' group by compliant").all() as Array<{
        compliant: number;
        n: number;
      }>;
      const sample = db.prepare("select data from attestations where type = 'custom:scan' and compliant = 0 limit 1").get() as { data: string } | undefined;
      db.close();
      if (sample) log(`custom types: a non-compliant one: ${JSON.stringify(JSON.parse(sample.data).evaluation)}`);
      const wrong = judged.filter((r) => r.compliant !== 1).reduce((n, r) => n + r.n, 0);
      return [
        {
          suite: 'custom types, SQLite',
          name: 'attest custom (3 jq rules + schema, 100 KB) vs attest generic (same 100 KB), 16 connections',
          value: round(measured.custom.rps, 0),
          unit: 'req/s',
          baseline: round(measured.generic.rps, 0),
          ratio: round(ratio, 2),
          target: '>= 0.5 of attest generic',
          pass: ratio >= 0.5 && wrong === 0 && measured.custom.non2xx === 0,
          note: `${turnRatios(measured.custom, measured.generic)}; CPU ${measured.custom.cpu ?? '?'} us per request vs ${measured.generic.cpu ?? '?'} us (the server's threads); p99 ${measured.custom.p99} ms vs ${measured.generic.p99} ms; non-2xx ${measured.custom.non2xx}; judged non-compliant ${wrong}`,
        },
      ];
    } finally {
      await server.stop().catch(() => {});
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
