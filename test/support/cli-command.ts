/**
 * Runs the `trailproof` command as a child process with no database, port or host inherited: what
 * the cli*.test.ts files beside main.ts share. The built command (bin/trailproof.js on dist/, built
 * once per test process, processes.ts) unless a test asks for the sources through tsx's loader.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createChildDatabase, type ChildDatabase } from './child-database.ts';
import { buildPackages, runProcess, trailproofBin } from './processes.ts';

/** The repository's root folder, where the children run. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = 'packages/server/src/cli/main.ts';

/** The environment of a child: nothing inherited that would choose its database, port or host. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, TRAILPROOF_DB: _t, PORT: _p, HOST: _h, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** The environment of a built child: childEnv without NODE_OPTIONS (the tests' `--conditions=source`). */
function builtChildEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _n, ...environment } = childEnv(extra);
  return environment;
}

/** Runs the built `trailproof ARGS` to completion without blocking this process (its keep-alive connections stay current). */
export async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  await buildPackages();
  return runProcess(process.execPath, [trailproofBin, ...args], { cwd: root, env: builtChildEnv(env) });
}

/** A `serve` child process and what it has logged. */
export interface Serving {
  child: ChildProcess;
  url: string;
  /** stdout lines so far, each one JSON object. */
  lines: Array<Record<string, any>>;
  exited: Promise<number | null>;
}

/** Starts `serve`: `installed` (the default), the package's bin/trailproof.js with no loader, as installed; `tsx`, the sources through tsx's loader. */
export async function serve(args: string[], env: NodeJS.ProcessEnv = {}, how: 'tsx' | 'installed' = 'installed'): Promise<Serving> {
  if (how === 'installed') await buildPackages();
  const command = how === 'tsx' ? ['--import', 'tsx', cli, 'serve', ...args] : [trailproofBin, 'serve', ...args];
  const child = spawn(process.execPath, command, { cwd: root, env: how === 'tsx' ? childEnv(env) : builtChildEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
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
    // Killed servers release their connections before the database is dropped: waited for, not slept for.
    await Promise.all(
      children.splice(0).map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
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
