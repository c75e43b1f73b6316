/**
 * The GitHub Action: read the inputs, attest the JUnit results, write the job summary and the
 * outputs, and fail the step when tests failed (and `fail-on-failure` says so). The summary is
 * written on a failure too, with the error and whatever was known by then.
 */
import * as core from '@actions/core';
import { annotationsFor, annotationsPerStep } from './annotations.ts';
import { AttestError, attestJunitResults, type AttestResult } from './attest-flow.ts';
import { fromGitHub, gitHubContext } from './git-context.ts';
import { readInputs, type AttestConfig } from './inputs.ts';
import { summaryMarkdown } from './summary.ts';

export async function run(): Promise<void> {
  let config: AttestConfig | undefined;
  let result: AttestResult | undefined;
  let error: string | undefined;
  let failing = false;
  try {
    // Masked before anything else can print it.
    const token = core.getInput('api-token');
    if (token) core.setSecret(token);
    const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
    const run = fromGitHub(gitHubContext(process.env), workspace);
    // The trail defaults to the commit the results are about: on pull_request, the PR head, not the merge commit.
    config = readInputs((name) => core.getInput(name), { defaultTrail: run.commit?.sha1, workspace });
    result = await attestJunitResults(config, run, { info: core.info, warning: core.warning });

    const t = result.totals!;
    core.setOutput('trail-url', result.unattested ? '' : result.trailUrl);
    core.setOutput('total', t.total);
    core.setOutput('passed', t.passed);
    core.setOutput('failed', t.failed);
    core.setOutput('errors', t.errors);
    core.setOutput('skipped', t.skipped);
    core.setOutput('flaky', t.flaky);
    core.setOutput('suites', t.suites);
    core.setOutput('compliant', result.compliant);
    if (!result.compliant && config.failOnFailure) {
      failing = true;
      core.setFailed(
        `${t.failed} test(s) failed and ${t.errors} errored (of ${t.total}); ${result.unattested ? 'nothing attested' : `evidence recorded at ${result.trailUrl}`}`,
      );
    }
  } catch (caught) {
    if (caught instanceof AttestError) result = caught.result;
    error = caught instanceof Error ? caught.message : String(caught);
    failing = true;
    core.setFailed(error);
  }
  const annotated = config && result ? annotate(config, result, failing) : undefined;
  if (config?.jobSummary === 'off' || (config?.jobSummary === 'failures' && !failing && result?.compliant)) return;
  try {
    await core.summary.addRaw(summaryMarkdown({ config, result, error, annotated }), true).write();
  } catch (caught) {
    core.warning(`Could not write the job summary: ${caught instanceof Error ? caught.message : String(caught)}`);
  }
}

/**
 * An error annotation per failed test, up to `annotations`, and no more than GitHub shows in one
 * step (10 errors, the step's own failure message included). Returns what the summary says of it.
 */
function annotate(config: AttestConfig, result: AttestResult, failing: boolean): { count: number; limit: string } {
  const room = annotationsPerStep - (failing ? 1 : 0);
  const count = Math.min(config.annotations, room, result.failures.length);
  const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
  for (const a of annotationsFor(result.failures, count, workspace)) {
    core.error(a.message, { title: a.title, ...(a.file ? { file: a.file } : {}), ...(a.line ? { startLine: a.line } : {}) });
  }
  const limit =
    config.annotations <= room
      ? `annotations is ${config.annotations}`
      : `GitHub shows at most ${annotationsPerStep} error annotations per step${failing ? ", the step's own failure message included" : ''}`;
  return { count, limit };
}
