/**
 * Runs the `trailproof` command from its sources (packages/server/src/cli/main.ts) as a child
 * process with no database, port or host inherited: what the cli*.test.ts files beside main.ts share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createChildDatabase, type ChildDatabase } from './child-database.ts';
import { runProcess } from './processes.ts';

/** The repository's root folder, where the children run. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = 'packages/server/src/cli/main.ts';

/** The environment of a child: nothing inherited that would choose its database, port or host. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, TRAILPROOF_DB: _t, PORT: _p, HOST: _h, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** Runs `trailproof ARGS` to completion without blocking this process (its keep-alive connections stay current). */
export function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProcess(process.execPath, ['--import', 'tsx', cli, ...args], { cwd: root, env: childEnv(env) });
}

/** A `serve` child process and what it has logged. */
export interface Serving {
  child: ChildProcess;
  url: string;
  /** stdout lines so far, each one JSON object. */
  lines: Array<Record<string, any>>;
  exited: Promise<number | null>;
}

/** Starts `serve` through tsx's loader (as the tests run everything), or `installed`: the package's bin/trailproof.js with no loader, as installed. */
export async function serve(args: string[], env: NodeJS.ProcessEnv = {}, how: 'tsx' | 'installed' = 'tsx'): Promise<Serving> {
  const command = how === 'tsx' ? ['--import', 'tsx', cli, 'serve', ...args] : ['packages/server/bin/trailproof.js', 'serve', ...args];
  const { NODE_OPTIONS: _n, ...environment } = childEnv(env);
  const child = spawn(process.execPath, command, { cwd: root, env: how === 'tsx' ? childEnv(env) : environment, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, any>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(JSON.parse(line));
      if (lines.length === 1) {
        expect(lines[0]!.msg, 'first line').to.equal('listening');
        resolve(lines[0]!.url);
      }
    });
  });
  return { child, url, lines, exited };
}

/** Sends one API request with `token` (a multipart form when `form` is given) and returns its status and JSON body. */
export const call = async (base: string, token: string, method: string, path: string, form?: Record<string, string>) => {
  let body: FormData | undefined;
  if (form) {
    body = new FormData();
    for (const [k, v] of Object.entries(form)) body.append(k, v);
  }
  const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}` }, body });
  return { status: res.status, body: await res.json() };
};

/** What each test of a `commandFixture` gets: a folder of its own and a database in it (or on the PostgreSQL pass a new PostgreSQL database). */
export interface CommandTestPlace {
  dir: string;
  /** The database of the test: a SQLite file, or on the PostgreSQL pass a new PostgreSQL database. */
  db: string;
  /** A SQLite file, for what only concerns files (TRAILPROOF_DB). */
  file: string;
}

/**
 * Registers, in the calling `describe`, a new place for each test (handed to `onEach` before it)
 * and its removal after it, every server the returned `start` started killed first.
 */
export function commandFixture(onEach: (place: CommandTestPlace) => void) {
  let database: ChildDatabase | undefined;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    database = await createChildDatabase('cli');
    onEach({ dir: database.dir, db: database.location, file: database.file });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sleep(100); // killed servers release their connections before the database is dropped
    await database?.remove();
    database = undefined;
  });
  /** `serve` ARGS, killed after the test. */
  return async (args: string[], env?: NodeJS.ProcessEnv, how?: 'tsx' | 'installed') => {
    const s = await serve(args, env, how);
    children.push(s.child);
    return s;
  };
}
