/**
 * A digest of every row of every table, read over a separate connection: equal digests before
 * and after mean nothing stored was changed.
 */
import { createHash } from 'node:crypto';
import { BetterSqlite3 } from '@trailproof/server/testing';
import pg from 'pg';

export async function databaseFingerprint(location: { file: string; url?: string; schema?: string }): Promise<{ digest: string; rows: number }> {
  const hash = createHash('sha256');
  let rows = 0;
  if (location.url) {
    const client = new pg.Client({ connectionString: location.url });
    await client.connect();
    try {
      const schema = location.schema ?? 'public';
      const tables = await client.query<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' and table_name not like 'schema_migrations%' order by table_name`,
        [schema],
      );
      for (const { table_name } of tables.rows) {
        const result = await client.query(`select * from "${schema}"."${table_name}" order by 1`);
        hash.update(table_name);
        for (const row of result.rows) hash.update(JSON.stringify(row, bufferReplacer)), rows++;
      }
    } finally {
      await client.end();
    }
  } else {
    const db = new BetterSqlite3(location.file, { readonly: true });
    try {
      const tables = db
        .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'schema_migrations%' order by name`)
        .all() as Array<{ name: string }>;
      for (const { name } of tables) {
        hash.update(name);
        for (const row of db.prepare(`select * from "${name}" order by 1`).all()) hash.update(JSON.stringify(row, bufferReplacer)), rows++;
      }
    } finally {
      db.close();
    }
  }
  return { digest: hash.digest('hex'), rows };
}

function bufferReplacer(_key: string, value: unknown) {
  if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer')
    return createHash('sha256')
      .update(Buffer.from((value as { data: number[] }).data))
      .digest('hex');
  return value;
}

/** SQLite's own consistency check; 'ok' when the file is sound. */
export function sqliteIntegrity(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}
