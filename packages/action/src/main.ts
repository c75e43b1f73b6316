/**
 * The GitHub Action: read the inputs, attest the JUnit results, write the job summary and the
 * outputs, and fail the step when tests failed (and `fail-on-failure` says so).
 */
import * as core from '@actions/core';
import * as github from '@actions/github';
import { attestJunitResults } from './attest-flow.ts';
import { fromGitHub } from './git-context.ts';
import { readInputs } from './inputs.ts';
import { summaryMarkdown } from './summary.ts';

export async function run(): Promise<void> {
  try {
    // Masked before anything else can print it.
    const token = core.getInput('api-token');
    if (token) core.setSecret(token);
    const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd();
    const run = fromGitHub(github.context, workspace);
    // The trail defaults to the commit the results are about: on pull_request, the PR head, not the merge commit.
    const config = readInputs((name) => core.getInput(name), run.commit?.sha1);
    const result = await attestJunitResults(config, run, { info: core.info, warning: core.warning });

    await core.summary.addRaw(summaryMarkdown(config, result), true).write();
    const t = result.totals;
    core.setOutput('trail-url', result.trailUrl);
    core.setOutput('total', t.total);
    core.setOutput('passed', t.passed);
    core.setOutput('failed', t.failed);
    core.setOutput('errors', t.errors);
    core.setOutput('skipped', t.skipped);
    core.setOutput('flaky', t.flaky);
    core.setOutput('suites', t.suites);
    core.setOutput('compliant', result.compliant);
    if (!result.compliant && config.failOnFailure) {
      core.setFailed(`${t.failed} test(s) failed and ${t.errors} errored (of ${t.total}); evidence recorded at ${result.trailUrl}`);
    }
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error));
  }
}
