/**
 * The committed action bundle, run exactly as the GitHub runner runs it (`node dist/index.js`
 * with INPUT_* and GITHUB_* variables, an event payload file, summary and output files), against
 * a real server process on a database of its own: what the action-e2e*.test.ts files share.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChildDatabase } from './child-database.ts';
import { graceRepository } from './grace-repository.ts';
import { runCli, runProcess, startServerProcess, type ServerProcess } from './processes.ts';

/** The action's committed bundle, as action.yml runs it. */
export const bundle = fileURLToPath(new URL('../../packages/action/dist/index.js', import.meta.url));
/** The action's fixtures: an event payload per event, and real reports under reruns/. */
export const fixtures = fileURLToPath(new URL('../../packages/action/src/fixtures/', import.meta.url));
/** The workflow commands of one kind in a step's output. */
export const commands = (stdout: string, kind: string) => stdout.split('\n').filter((line) => line.startsWith(`::${kind} `) || line.startsWith(`::${kind}::`));

/** A JUnit report of one suite, 3 tests: 2 passed, 1 skipped. */
export const passingXml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="invoice.RoundingTest" tests="3" failures="0" errors="0" skipped="1" time="0.42" timestamp="2026-11-20T13:05:00Z">
    <testcase classname="invoice.RoundingTest" name="half to even" time="0.1"/>
    <testcase classname="invoice.RoundingTest" name="negative amounts" time="0.3"/>
    <testcase classname="invoice.RoundingTest" name="currency without cents" time="0.02"><skipped/></testcase>
  </testsuite>
</testsuites>`;
/** A JUnit report of one suite, 2 tests: 1 passed, 1 failed (its frame names vat.ts:42). */
export const failingXml = `<testsuite name="vat.ReverseChargeTest" tests="2" failures="1">
  <testcase classname="vat.ReverseChargeTest" name="b2b within EU" time="0.2"><failure message="expected 0.00 but was 19.00">AssertionError at vat.ts:42</failure></testcase>
  <testcase classname="vat.ReverseChargeTest" name="b2c" time="0.1"/>
</testsuite>`;

/** A server process on a fresh database, and an API token of org acme. */
export interface ActionServer {
  server: ServerProcess;
  token: string;
  /** Stops the server and removes its database. */
  stop(): Promise<void>;
}

/** Starts a server on a fresh database (PostgreSQL when the tests run against it, else a SQLite file) with a token of org acme. */
export async function startActionServer(): Promise<ActionServer> {
  const database = await createChildDatabase('action');
  try {
    const token = (await runCli(['token', 'create', '--org', 'acme', ...database.args])).trim();
    const server = await startServerProcess(database.args);
    return {
      server,
      token,
      stop: async () => {
        await server.stop();
        await database.remove();
      },
    };
  } catch (error) {
    await database.remove();
    throw error;
  }
}

/** `runAction(event, files, inputs, options)` against `target()`'s server, each run's folder added to `dirs` (see runAction). */
export function actionRunner(dirs: string[], target: () => { serverUrl: string; token: string }) {
  /**
   * A workspace with the given files, and the runner's environment for `event`. With `checkout`,
   * the workspace is a depth-1 clone (as actions/checkout makes) of a repository whose head commit
   * is Grace's, and a pull_request payload names that commit as the PR head.
   */
  return async function runAction(
    event: 'push' | 'pull_request' | 'workflow_run',
    files: Record<string, string>,
    inputs: Record<string, string> = {},
    options: { checkout?: boolean; prepare?: (workspace: string) => void } = {},
  ) {
    const { serverUrl, token } = target();
    const root = mkdtempSync(join(tmpdir(), 'trailproof-runner-'));
    dirs.push(root);
    const workspace = join(root, 'workspace');
    const head = options.checkout ? graceRepository(root, workspace).head : undefined;
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(workspace, path, '..'), { recursive: true });
      writeFileSync(join(workspace, path), content);
    }
    mkdirSync(workspace, { recursive: true });
    options.prepare?.(workspace);
    const payload = JSON.parse(readFileSync(join(fixtures, `${event}.json`), 'utf8'));
    if (head && event === 'pull_request') payload.pull_request.head.sha = head;
    writeFileSync(join(root, 'event.json'), JSON.stringify(payload));
    writeFileSync(join(root, 'summary.md'), '');
    writeFileSync(join(root, 'output.txt'), '');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: root,
      RUNNER_TEMP: root,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/backend',
      GITHUB_REPOSITORY_OWNER: 'acme',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_API_URL: 'https://api.github.com',
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_NUMBER: '17',
      GITHUB_WORKFLOW: 'CI',
      GITHUB_JOB: 'test',
      GITHUB_ACTOR: 'ada',
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: join(root, 'event.json'),
      GITHUB_WORKSPACE: workspace,
      GITHUB_SHA: event === 'push' ? payload.after : 'abababababababababababababababababababab',
      GITHUB_REF: event === 'pull_request' ? 'refs/pull/87/merge' : 'refs/heads/main',
      GITHUB_STEP_SUMMARY: join(root, 'summary.md'),
      GITHUB_OUTPUT: join(root, 'output.txt'),
      'INPUT_SERVER-URL': serverUrl,
      'INPUT_API-TOKEN': token,
      INPUT_ORG: 'acme',
      INPUT_FLOW: 'backend',
      'INPUT_ATTESTATION-NAME': 'junit',
      'INPUT_FAIL-ON-FAILURE': 'true',
      'INPUT_REQUIRE-TESTS': 'true',
      'INPUT_UPLOAD-RESULTS': 'true',
      ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    };
    const result = await runProcess(process.execPath, [bundle], { cwd: workspace, env, timeoutMs: 60_000 });
    return {
      ...result,
      payload,
      head,
      workspace,
      summary: readFileSync(join(root, 'summary.md'), 'utf8'),
      outputs: parseOutputs(readFileSync(join(root, 'output.txt'), 'utf8')),
    };
  };
}

/** Parses GITHUB_OUTPUT's `name<<delimiter` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!match) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i]!);
    out[match[1]!] = value.join('\n');
  }
  return out;
}

/**
 * Registers, in the calling `describe`, a server on a fresh database started before its tests
 * (handed to `onStart` with its token) and stopped after them, and returns `runAction` against it
 * (see actionRunner) and `dirs`, folders removed after the tests (runAction's workspaces, and
 * any a test adds).
 */
export function actionFixture(onStart: (started: { server: ServerProcess; token: string }) => void) {
  let started: ActionServer | undefined;
  const dirs: string[] = [];
  before(async () => {
    started = await startActionServer();
    onStart(started);
  });
  after(async () => {
    await started?.stop();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  return { runAction: actionRunner(dirs, () => ({ serverUrl: started!.server.url, token: started!.token })), dirs };
}
