/**
 * `trailproof-junit`: the same job outside GitHub, for any CI system.
 *
 *   trailproof-junit --server-url URL --api-token TOKEN --org ORG --flow FLOW [--trail NAME]
 *     [--junit-paths GLOB]... [--attestation-name NAME] [--template-file FILE]
 *     [--artifact-fingerprint SHA256] [--description TEXT] [--fail-on-failure true|false]
 *     [--require-tests true|false] [--upload-results true|false] [--summary FILE]
 *
 * Each flag may come from the environment instead: --server-url is TRAILPROOF_SERVER_URL, and
 * so on (flags win). Exit status: 0 passed, 1 tests failed or the job failed, 2 bad input.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AttestError, attestJunitResults, type AttestResult } from './attest-flow.ts';
import { fromEnvironment } from './git-context.ts';
import { InputError, readInputs, type AttestConfig } from './inputs.ts';
import { summaryMarkdown } from './summary.ts';

const names = [
  'server-url', 'api-token', 'org', 'flow', 'trail', 'junit-paths', 'attestation-name', 'template-file', 'artifact-fingerprint', 'description',
  'fail-on-failure', 'require-tests', 'upload-results',
] as const;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(names.map((n) => [n, n === 'junit-paths' ? { type: 'string' as const, multiple: true } : { type: 'string' as const }])),
        summary: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`trailproof-junit: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write('Usage: trailproof-junit --server-url URL --api-token TOKEN --org ORG --flow FLOW [--trail NAME] [--junit-paths GLOB]...\n'
      + 'Every flag can be given as TRAILPROOF_<NAME> in the environment (e.g. TRAILPROOF_SERVER_URL).\n');
    return 0;
  }
  const get = (name: string) => {
    const flag = values[name];
    if (Array.isArray(flag)) return flag.join('\n');
    if (typeof flag === 'string') return flag;
    return env[`TRAILPROOF_${name.toUpperCase().replace(/-/g, '_')}`] ?? '';
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
    process.stdout.write(`${t.total} tests: ${t.passed} passed, ${t.failed} failed, ${t.errors} errors, ${t.skipped} skipped, ${t.flaky} flaky\n${result.trailUrl}\n`);
    if (!result.compliant && config.failOnFailure) status = 1;
  } catch (caught) {
    if (caught instanceof AttestError) result = caught.result;
    error = (caught as Error).message;
    process.stderr.write(`trailproof-junit: ${error}\n`);
    status = caught instanceof InputError ? 2 : 1;
  }
  // Like the job summary: written on a failure too.
  if (typeof values.summary === 'string') writeFileSync(values.summary, summaryMarkdown({ config, result, error }));
  return status;
}

process.exitCode = await main(process.argv.slice(2));
