/** Runs SQL on a test server's database behind its back (a separate connection), as an intruder with database access would. */
import pg from 'pg';
import { BetterSqlite3, type TestServer } from '@trailproof/server/testing';

export async function rawSql(server: Pick<TestServer, 'backend' | 'file' | 'location' | 'schema'>, statements: string[]): Promise<void> {
  if (server.backend === 'sqlite') {
    const db = new BetterSqlite3(server.file);
    try {
      for (const statement of statements) db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: server.location, options: `-c search_path=${server.schema}` });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
