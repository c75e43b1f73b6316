/**
 * Reading attestations back by id (issue 50): `GET /attestations/{org}?attestation_id=` as `kosli
 * evaluate trail` reads each attestation of a trail, at 16 connections, with 1,000,000
 * attestations stored (100,000 with --quick), each request a different id. The target: p99
 * under 20 ms. The attestations are copies of one attested through the API (a generic one with
 * a small user_data), 100 on each of 10,000 trails (copies of its trail): the answer says whether
 * each is the latest of its name on its trail, which reads the later ones of that name alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { load } from './support/load.ts';
import { log, runCli, startServer } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';

/** Attestations a trail holds in the seeded data: `kosli evaluate trail` reads one trail's. */
const perTrail = 100;

/** Copies of `table`'s first row, `count` of them in statements of 100,000, with `name` (an SQL expression of `i`, from 1) and `overrides` given. */
function copyRows(db: InstanceType<typeof BetterSqlite3>, table: string, count: number, given: Record<string, string>): void {
  const columns = (db.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name).filter((c) => c !== 'id' && !(c in given));
  const copy = db.prepare(`with recursive n(i) as (select cast(? as integer) union all select i + 1 from n where i < ?)
    insert into ${table} (${[...Object.keys(given), ...columns].join(', ')}) select ${[...Object.values(given), ...columns].join(', ')} from n, (select * from ${table} order by id limit 1)`);
  for (let from = 1; from <= count; from += 100_000) copy.run(from, Math.min(from + 99_999, count));
}

/** Copies the one stored trail and attestation until there are `count` attestations, `perTrail` on each trail. */
function seedAttestations(location: string, count: number): number {
  const db = new BetterSqlite3(location);
  try {
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      copyRows(db, 'trails', count / perTrail - 1, { name: "'trail-' || i" });
      const first = Number((db.prepare('select min(id) as id from trails').get() as { id: number }).id);
      copyRows(db, 'attestations', count - 1, { name: `'check-' || (i % ${perTrail})`, trail_id: `${first} + (i / ${perTrail})` });
    })();
    const broken = db.prepare('pragma foreign_key_check').all();
    if (broken.length) throw new Error(`seeded rows without their references: ${JSON.stringify(broken.slice(0, 3))}`);
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
          pass: measured.ok > 0 && measured.p99 < 20 && measured.non2xx === 0 && measured.errors === 0,
          note: `${round(measured.rps, 0)} req/s, p50 ${measured.p50} ms; answers ${measured.ok}, non-2xx ${measured.non2xx}, errors and time-outs ${measured.errors}`,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
