/**
 * A `trailproof serve` child process on a fresh database of the backend under test (a SQLite
 * file, or a PostgreSQL database when TRAILPROOF_TEST_DATABASE is set), with a read-write token
 * of `acme` and a trail `app/t1` to attest to. For what an in-process server cannot show: its
 * memory, and a client on another event loop than the server's.
 */
import { readFileSync } from 'node:fs';
import { createChildDatabase } from '../support/child-database.ts';
import { call, runCli, startServerProcess, type ServerProcess } from '../support/processes.ts';

export interface ChildServer extends ServerProcess {
  token: string;
  /** The `--db FILE` or `--database URL` arguments of its database, for other commands. */
  database: string[];
  /** The server's resident memory now and at its peak (VmRSS and VmHWM of /proc), in bytes. */
  memory(): { rss: number; peak: number };
  /** Stops the server and removes its database. */
  close(): Promise<void>;
}

/** `args`: more arguments of `serve` (`--trust-proxy`, say). */
export async function startChildServer(env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<ChildServer> {
  const own = await createChildDatabase('hostile');
  const database = own.args;
  const token = (await runCli(['token', 'create', '--org', 'acme', ...database])).trim();
  const server = await startServerProcess([...database, ...args], env);
  expect2xx(await call(server.url, token, 'PUT', '/api/v2/flows/acme', { json: { name: 'app' } }));
  const form = new FormData();
  form.append('data_json', JSON.stringify({ name: 't1' }));
  expect2xx(await call(server.url, token, 'PUT', '/api/v2/trails/acme/app', { form }));
  return {
    ...server,
    token,
    database,
    memory() {
      const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
      return { rss: kib('VmRSS'), peak: kib('VmHWM') };
    },
    async close() {
      await server.stop();
      await own.remove();
    },
  };
}

function expect2xx(answer: { status: number; body: unknown }) {
  if (answer.status >= 300) throw new Error(`setting up the child server: ${answer.status} ${JSON.stringify(answer.body)}`);
}
