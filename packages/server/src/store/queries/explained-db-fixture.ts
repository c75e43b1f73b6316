/**
 * A second connection to a test store's database that logs every statement it sends and explains
 * one as it was sent (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN with sequential scans
 * disabled, which still shows one where no index can serve): for the tests that check a query's plan.
 */
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import BetterSqlite3 from '../sqlite/driver.ts';
import type { Database, Db } from '../database.ts';
import { sqliteDialect } from '../sqlite/open.ts';

export interface ExplainedDb {
  db: Db;
  /** The statements sent since the last `sent.length = 0`. */
  sent: CompiledQuery[];
  explain(query: CompiledQuery): Promise<string>;
  /** The plans of the statements `read` sends. */
  plansOf(read: () => Promise<unknown>): Promise<string[]>;
  close(): Promise<void>;
}

function withPlans(db: Db, sent: CompiledQuery[], explain: ExplainedDb['explain'], close: () => Promise<void>): ExplainedDb {
  const plansOf = async (read: () => Promise<unknown>) => {
    sent.length = 0;
    await read();
    if (!sent.length) throw new Error('the read sent no statement');
    return Promise.all(sent.map(explain));
  };
  return { db, sent, explain, plansOf, close };
}

export function explainedDb(opened: { location: string; schema?: string }): ExplainedDb {
  const sent: CompiledQuery[] = [];
  const log = (event: { query: CompiledQuery }) => void sent.push(event.query);
  if (opened.schema === undefined) {
    const raw = new BetterSqlite3(opened.location);
    const db = new Kysely<Database>({ dialect: sqliteDialect(raw), log });
    const explain = async (q: CompiledQuery) =>
      raw
        .prepare(`explain query plan ${q.sql}`)
        .all(...(q.parameters as unknown[]))
        .map((row) => (row as { detail: string }).detail)
        .join('\n');
    return withPlans(db, sent, explain, async () => {
      await db.destroy();
      raw.close();
    });
  }
  const pool = new pg.Pool({ connectionString: opened.location, max: 1, options: `-c search_path=${opened.schema} -c enable_seqscan=off` });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  const explain = async (q: CompiledQuery) => (await pool.query(`explain ${q.sql}`, q.parameters as unknown[])).rows.map((r) => r['QUERY PLAN']).join('\n');
  return withPlans(db, sent, explain, () => db.destroy());
}
