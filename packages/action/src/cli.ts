/**
 * `trailproof-junit`: the same job outside GitHub, for any CI system.
 *
 *   trailproof-junit --server-url URL --api-token TOKEN --org ORG --flow FLOW [flags]
 *
 * `--help` lists every flag with its environment variable (--server-url is TRAILPROOF_SERVER_URL,
 * and so on; flags win) and default. Exit status: 0 passed, 1 tests failed or the job failed, 2 bad input.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AttestError, attestJunitResults, type AttestResult } from './attest-flow.ts';
import { fromEnvironment } from './git-context.ts';
import { InputError, readInputs, type AttestConfig } from './inputs.ts';
import { summaryMarkdown } from './summary.ts';
import packageJson from '../package.json' with { type: 'json' };

const { version } = packageJson;

/** Every flag but --summary, --help and --version: the action's inputs, with their defaults. */
const flags: Array<[name: string, value: string, fallback: string]> = [
  ['server-url', 'URL', '(required)'],
  ['api-token', 'TOKEN', '(required unless --on-missing-token warn)'],
  ['org', 'ORG', '(required)'],
  ['flow', 'FLOW', '(required)'],
  ['trail', 'NAME', 'the commit SHA'],
  ['junit-paths', 'GLOB', "the common runners' report locations; repeat for more"],
  ['attestation-name', 'NAME', 'junit'],
  ['template-file', 'FILE', 'none'],
  ['artifact-fingerprint', 'SHA256', 'none'],
  ['description', 'TEXT', 'none'],
  ['fail-on-failure', 'true|false', 'true'],
  ['require-tests', 'true|false', 'true'],
  ['upload-results', 'true|false', 'true'],
  ['reruns', 'separate|merge', 'separate'],
  ['job-summary', 'all|failures|off', 'all (applies to --summary)'],
  ['on-missing-token', 'fail|warn', 'fail'],
];
const envName = (flag: string) => `TRAILPROOF_${flag.toUpperCase().replace(/-/g, '_')}`;

function usage(): string {
  const rows = [
    ...flags.map(([name, value, fallback]) => [`--${name} ${value}`, envName(name), fallback]),
    ['--summary FILE', '', 'none: write the summary (Markdown) to FILE'],
    ['--help, -h', '', ''],
    ['--version', '', ''],
  ];
  const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
  return [
    'Usage: trailproof-junit [flags]',
    'Reads JUnit XML and attests it to a Trailproof server. Each flag can come from its environment variable (flags win).',
    '',
    `  ${'Flag'.padEnd(width(0))}  ${'Environment'.padEnd(width(1))}  Default`,
    ...rows.map(([flag, env, fallback]) => `  ${flag!.padEnd(width(0))}  ${env!.padEnd(width(1))}  ${fallback}`.trimEnd()),
    '',
    'Exit status: 0 passed, 1 tests failed or the job failed, 2 bad input.',
    '',
  ].join('\n');
}

/**
 * Outside GitHub Actions nothing reads workflow commands: drop the `::debug::` and other
 * `::command::` lines the toolkit (@actions/glob) writes to stdout, which has no switch for it.
 */
function dropWorkflowCommands(): void {
  const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, ...rest: unknown[]) => boolean;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && /^::[a-z-]+( [^:]*)?::/.test(chunk)) return true;
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (env.GITHUB_ACTIONS !== 'true') dropWorkflowCommands();
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(flags.map(([n]) => [n, n === 'junit-paths' ? { type: 'string' as const, multiple: true } : { type: 'string' as const }])),
        summary: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`trailproof-junit: ${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage());
    return 0;
  }
  if (values.version) {
    process.stdout.write(`trailproof-junit ${version}\n`);
    return 0;
  }
  const get = (name: string) => {
    const flag = values[name];
    if (Array.isArray(flag)) return flag.join('\n');
    if (typeof flag === 'string') return flag;
    return env[envName(name)] ?? '';
  };
  const workspace = process.cwd();
  const run = fromEnvironment(env, workspace);
  let config: AttestConfig | undefined;
  let result: AttestResult | undefined;
  let status = 0;
  let error: string | undefined;
  try {
    config = readInputs(get, { defaultTrail: run.commit?.sha1, workspace });
    result = await attestJunitResults(config, run, {
      info: (m) => process.stdout.write(`${m}\n`),
      warning: (m) => process.stderr.write(`warning: ${m}\n`),
    });
    const t = result.totals!;
    process.stdout.write(
      `${t.total} tests: ${t.passed} passed, ${t.failed} failed, ${t.errors} errors, ${t.skipped} skipped, ${t.flaky} flaky\n${result.trailUrl}\n`,
    );
    if (!result.compliant && config.failOnFailure) status = 1;
  } catch (caught) {
    if (caught instanceof AttestError) result = caught.result;
    error = (caught as Error).message;
    process.stderr.write(`trailproof-junit: ${error}\n`);
    status = caught instanceof InputError ? 2 : 1;
  }
  // Like the job summary: written on a failure too.
  const skip = config?.jobSummary === 'off' || (config?.jobSummary === 'failures' && status === 0 && result?.compliant);
  if (typeof values.summary === 'string' && !skip) writeFileSync(values.summary, summaryMarkdown({ config, result, error }));
  return status;
}

process.exitCode = await main(process.argv.slice(2));
