/**
 * The write and read benchmarks on PostgreSQL, with two server processes sharing one database
 * (and two baseline processes). Runs under scripts/with-postgres.sh (a throwaway cluster,
 * DATABASE_URL set); run.ts starts it and merges the figures it writes to OUT.
 *
 *   bash scripts/with-postgres.sh node --import tsx bench/postgres.ts OUT.json [--quick]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readPath } from './read-path.ts';
import { createDatabase, log } from './support/processes.ts';
import type { Figure } from './support/report.ts';
import { writePath } from './write-path.ts';

const { values, positionals } = parseArgs({ options: { quick: { type: 'boolean' } }, allowPositionals: true });
const out = positionals[0];
const base = process.env.DATABASE_URL;
if (!out || !base) throw new Error('usage: DATABASE_URL=postgres://... postgres.ts OUT.json [--quick] (run it under scripts/with-postgres.sh)');
const quick = values.quick ?? false;
const only = process.env.TRAILPROOF_BENCH_ONLY; // 'write' or 'read' to run one half

const drops: Array<() => Promise<void>> = [];
const newDatabase = async (label: string) => {
  const db = await createDatabase(base, `bench_${label.replace(/\W/g, '_')}`);
  drops.push(db.drop);
  return db.url;
};

const figures: Figure[] = [];
try {
  if (only !== 'read') {
    log('write path (PostgreSQL, 2 server processes)');
    figures.push(
      ...(await writePath({
        quick,
        processes: 2,
        suite: 'write, PostgreSQL',
        database: await newDatabase('write'),
        floorDatabase: await newDatabase('floor'),
      })),
    );
  }
  if (only !== 'write') {
    log('read path (PostgreSQL, 2 server processes)');
    figures.push(...(await readPath({ quick, processes: 2, suite: 'read, PostgreSQL', newDatabase })));
  }
  writeFileSync(out, JSON.stringify(figures));
} finally {
  for (const drop of drops) await drop().catch(() => {});
}
