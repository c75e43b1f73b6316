/**
 * Reading attestations back by id (issue 50): `GET /attestations/{org}?attestation_id=` as `kosli
 * evaluate trail` reads each attestation of a trail, at 16 connections, with 1,000,000
 * attestations stored (100,000 with --quick), each request a different id. The target: p99
 * under 20 ms. The attestations are copies of one attested through the API (a generic one with
 * a small user_data), spread over 1,000 names on one trail; the lookup is by primary key within
 * the organisation, so how they spread over trails does not change what it reads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { load } from './support/load.ts';
import { log, runCli, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';

/** Copies the one stored attestation until the table holds `count`, in statements of 100,000. */
function seedAttestations(location: string, count: number): number {
  const db = new BetterSqlite3(location);
  try {
    db.pragma('synchronous = OFF');
    const columns = (db.prepare('pragma table_info(attestations)').all() as Array<{ name: string }>).map((c) => c.name).filter((c) => c !== 'id' && c !== 'name');
    const list = columns.join(', ');
    const copy = db.prepare(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
      insert into attestations (name, ${list}) select 'check-' || (i % 1000), ${list} from n, (select * from attestations order by id limit 1)`);
    for (let stored = 1; stored < count; stored += 100_000) copy.run(Math.min(100_000, count - stored));
    return Number((db.prepare('select max(id) as id from attestations').get() as { id: number }).id);
  } finally {
    db.close();
  }
}

export async function attestationIdReads(o: { quick: boolean }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-attestation-reads-'));
  const location = join(dir, 'reads.db');
  const count = o.quick ? 100_000 : 1_000_000;
  const connections = 16;
  try {
    const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
    const auth = { authorization: `Bearer ${token}` };
    let server = await startServer(location);
    const form = (data: unknown) => {
      const f = new FormData();
      f.append('data_json', JSON.stringify(data));
      return f;
    };
    const attested = await fetch(`${server.url}/api/v2/attestations/bench/app/trail/t1/generic`, {
      method: 'POST',
      headers: auth,
      body: form({ attestation_name: 'check-0', is_compliant: true, user_data: { scanner: 'trivy', findings: 0 } }),
    });
    if (attested.status !== 201) throw new Error(`attest generic answered ${attested.status}`);
    await server.stop();
    const started = Date.now();
    const maxId = seedAttestations(location, count);
    log(`attestation reads: ${count} attestations seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Ids in a fixed pseudo-random order over the whole table, one a request.
    const paths = Array.from({ length: 20_000 }, (_, i) => `/api/v2/attestations/bench?attestation_id=${1 + ((i * 7_919_993) % maxId)}`);
    const pathsFile = join(dir, 'paths.txt');
    writeFileSync(pathsFile, `${paths.join('\n')}\n`);
    server = await startServer(location);
    try {
      const url = `${server.url}/api/v2/attestations/bench?attestation_id=1`;
      await load({ url, headers: auth, pathsFile, connections, seconds: o.quick ? 2 : 5 });
      const measured = await load({ url, headers: auth, pathsFile, connections, seconds: o.quick ? 5 : 15 });
      return [
        {
          suite: 'attestation reads, SQLite',
          name: `GET /attestations/{org}?attestation_id= (a different id each), ${count.toLocaleString('en')} attestations, ${connections} connections`,
          value: measured.p99,
          unit: 'ms p99',
          baseline: null,
          ratio: null,
          target: 'p99 < 20 ms',
          pass: measured.p99 < 20 && measured.non2xx === 0 && measured.errors === 0,
          note: `${round(measured.rps, 0)} req/s, p50 ${measured.p50} ms; non-2xx ${measured.non2xx}, errors ${measured.errors}`,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
