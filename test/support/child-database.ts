/**
 * A database of its own for a `trailproof` child process, on the backend under test: a new
 * PostgreSQL database when TRAILPROOF_TEST_DATABASE names a server, else a SQLite file in a fresh
 * temporary folder. Kept out of processes.ts on purpose: scripts/test-files.sh puts every test
 * that imports a module reading TRAILPROOF_TEST_DATABASE into the PostgreSQL pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testBackend } from '@trailproof/server/testing';
import { createDatabase } from './processes.ts';

/** A child process's own database, and the temporary folder that goes with it on either backend. */
export interface ChildDatabase {
  /** A fresh temporary folder, removed with the database. */
  dir: string;
  /** A SQLite file in `dir`, not yet created: the database on the SQLite pass. */
  file: string;
  /** The database to hand the child: a postgres:// URL on the PostgreSQL pass, else `file`. */
  location: string;
  /** The command-line arguments that name it: `--database URL`, or `--db FILE`. */
  args: string[];
  /** Drops the PostgreSQL database and removes `dir`; stop the processes that use them first. */
  remove(): Promise<void>;
}

/**
 * Creates a database for a child process; `name` tells its leftovers apart: the folder is
 * `trailproof-NAME-XXXXXX` in the system's temporary folder, a PostgreSQL database `NAME_PID_TIME`.
 */
export async function createChildDatabase(name: string): Promise<ChildDatabase> {
  const dir = mkdtempSync(join(tmpdir(), `trailproof-${name}-`));
  const file = join(dir, 'evidence.db');
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (testBackend !== 'postgres') return { dir, file, location: file, args: ['--db', file], remove: async () => removeDir() };
  let created: Awaited<ReturnType<typeof createDatabase>>;
  try {
    created = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, name);
  } catch (error) {
    removeDir();
    throw error;
  }
  return {
    dir,
    file,
    location: created.url,
    args: ['--database', created.url],
    remove: async () => {
      try {
        await created.drop();
      } finally {
        removeDir();
      }
    },
  };
}
