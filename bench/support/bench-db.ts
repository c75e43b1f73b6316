/**
 * The SQLite files of the benches that seed by SQL and compare with a bare handler: the seeding
 * connection (support/seed-*.ts) and the baselines' read-only one (support/baseline-*.ts).
 */
import { BetterSqlite3 } from '@trailproof/server/testing';

export type Row = Record<string, any>;

/**
 * The baseline's database, the file named as its script's first argument, read-only, and `all`,
 * which prepares each statement once (as the server's driver does) and returns its rows.
 */
export function baselineDatabase(script: string) {
  const [file] = process.argv.slice(2);
  if (!file) throw new Error(`usage: ${script} FILE`);
  const db = new BetterSqlite3(file, { readonly: true });
  db.pragma('busy_timeout = 5000');
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const all = (sql: string, ...params: unknown[]) => (prepared.get(sql) ?? prepared.set(sql, db.prepare(sql)).get(sql)!).all(...params) as Row[];
  return { db, all };
}

/**
 * Runs `seed` on a database the server has migrated (WAL, no fsync: a seed is made again if the
 * machine stops), with the id of the organisation `bench`, then closes it.
 */
export function seedDatabase(file: string, seed: (db: BetterSqlite3.Database, org: number) => void): void {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  try {
    seed(db, Number((db.prepare(`select id from organizations where name = 'bench'`).get() as { id: number }).id));
  } finally {
    db.close();
  }
}
