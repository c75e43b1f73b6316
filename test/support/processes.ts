/**
 * Runs the real `trailproof` command as child processes, the way an operator would: servers on
 * ephemeral loopback ports, tokens from `token create`. The command is the built one
 * (packages/server/bin/trailproof.js on dist/, built once per test process when the sources
 * changed): through the TypeScript loader each child spent seconds of CPU compiling and resolving
 * the sources before it listened, and the suite starts hundreds of them (issue 47).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The repository's root folder. */
export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The installed command's entry: dist/cli/main.js with plain node. */
export const trailproofBin = fileURLToPath(new URL('../../packages/server/bin/trailproof.js', import.meta.url));

let built: Promise<void> | null = null;

/**
 * Builds the packages to JavaScript (`pnpm build`, tsc -b: incremental, about a second when
 * nothing changed), once per test process, so that the children run what the sources say.
 */
export function buildPackages(): Promise<void> {
  built ??= runProcess('pnpm', ['build'], { cwd: repositoryRoot, env: builtEnv() }).then((result) => {
    if (result.status !== 0) throw new Error(`pnpm build exited ${result.status}: ${result.stdout}${result.stderr}`);
  });
  return built;
}

/**
 * process.env and `extra`, without NODE_OPTIONS (which carries the tests' `--conditions=source`,
 * test/support/sources.cjs): node then loads dist/ and nothing else.
 */
export function builtEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, ...environment } = process.env;
  return { ...environment, ...extra };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Every stdout line so far (JSON logs). */
  lines: string[];
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** How a finished process ended. */
export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs COMMAND ARGS to completion without blocking this process: a synchronous spawn would
 * stop the event loop for seconds, during which a server may close this process's idle
 * keep-alive connections unseen, and the next fetch on one fails with EPIPE or ECONNRESET.
 */
export function runProcess(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs the built `trailproof ARGS` to completion, whatever its exit status. */
export async function runTrailproof(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  await buildPackages();
  return runProcess(process.execPath, [trailproofBin, ...args], { env: builtEnv(env) });
}

/** Runs `trailproof ARGS` to completion and returns its stdout; throws on a non-zero exit. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const result = await runTrailproof(args, env);
  if (result.status !== 0) throw new Error(`trailproof ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/**
 * Starts `trailproof serve ARGS --port 0` and waits for its "listening" log line (`listeners` of
 * them: one a worker with `--workers`). The built command by default; `command` (node's
 * arguments before `serve`) and `baseEnv` start another build of it (the benchmarks' copy).
 */
export async function startServerProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  listeners = 1,
  { command, baseEnv }: { command?: string[]; baseEnv?: NodeJS.ProcessEnv } = {},
): Promise<ServerProcess> {
  if (!command) {
    await buildPackages();
    command = [trailproofBin];
    baseEnv ??= builtEnv();
  }
  baseEnv ??= process.env;
  const child = spawn(process.execPath, [...command, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
    if (process.env.TRAILPROOF_TEST_CHILD_STDERR) process.stderr.write(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: a pool of workers on a loaded machine took over 30 s. One that gave up is stopped,
    // or its open pipes would keep the test process running.
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`server did not start in 120 s: ${stderr}`));
    }, 120_000);
    void exited.then((code) => reject(new Error(`server exited ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'listening' && entry.url && --listeners === 0) {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
  });
  return {
    url,
    child,
    lines,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Creates an empty PostgreSQL database next to the one in `baseUrl`; returns its URL and a drop function. */
export async function createDatabase(baseUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A small fetch wrapper with a bearer token and a JSON answer. */
export async function call(base: string, token: string, method: string, path: string, body?: { json?: unknown; form?: FormData }) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let payload: FormData | string | undefined = body?.form;
  if (body?.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  const response = await fetch(base + path, { method, headers, body: payload });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
