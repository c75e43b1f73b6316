// @database
/**
 * The action, run as the runner runs it on a push, a pull request and a workflow_run event, attests
 * to the right trail, and the trail reads back through the API with every field.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { call, type ServerProcess } from './support/processes.ts';
import { actionFixture, commands, failingXml, passingXml } from './support/action-run.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const moreXml = `<testsuite name="invoice.TaxTest" tests="2" time="1.5">
  <testcase classname="invoice.TaxTest" name="standard rate" time="0.5"/>
  <testcase classname="invoice.TaxTest" name="flaky network" time="1.0"><flakyFailure message="timeout"/></testcase>
</testsuite>`;

describe('the GitHub Action, run as the runner runs it', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let token = '';
  const { runAction } = actionFixture((started) => ({ server, token } = started));

  it('push: attests passing results with both files as a .tar.gz, and the trail reads back with every field', async () => {
    const run = await runAction('push', {
      'build/test-results/TEST-rounding.xml': passingXml,
      'tax/junit-tax.xml': moreXml,
      'build/test-results/failsafe-summary.xml': '<failsafe-summary result="0"/>',
    });
    expect(run.status, run.stdout + run.stderr).to.equal(0);
    // The token reaches the log only in the command that tells the runner to mask it.
    expect(run.stdout.split('\n').filter((line) => line.includes(token))).to.deep.equal([`::add-mask::${token}`]);
    expect(run.stdout).to.match(/::warning::Skipped .*failsafe-summary\.xml: not a JUnit report/);
    const sha: string = run.payload.after;
    expect(run.outputs).to.deep.equal({
      'trail-url': `${server.url}/ui/acme/flows/backend/trails/${sha}`,
      total: '5',
      passed: '4',
      failed: '0',
      errors: '0',
      skipped: '1',
      flaky: '1',
      suites: '2',
      compliant: 'true',
    });
    expect(run.summary)
      .to.contain('✅ all tests passed')
      .and.to.contain('| invoice.RoundingTest | 3 | 2 | 0 | 0 | 1 |')
      .and.to.contain(`(${server.url}/ui/acme/flows/backend/trails/${sha})`);

    const trail = await call(server.url, token, 'GET', `/api/v2/trails/acme/backend/${sha}`);
    expect(trail.status).to.equal(200);
    expect(trail.body.name).to.equal(sha);
    expect(trail.body.git_commit_info).to.deep.include({
      sha1: sha,
      branch: 'main',
      message: 'Fix rounding in invoice totals\n\nRounds half to even, as the auditors asked.',
      author: 'Ada Lovelace <ada@acme.example>',
      author_username: 'ada',
      timestamp: Date.parse('2026-11-20T14:03:11+01:00') / 1000,
      url: `https://github.com/acme/backend/commit/${sha}`,
      // No git history in this workspace: the one pushed commit's parent is the payload's `before`.
      parents: [run.payload.before],
    });
    expect(trail.body.repo_info).to.deep.include({
      name: 'acme/backend',
      url: 'https://github.com/acme/backend',
      id: '734512',
      description: 'Invoicing backend',
    });
    expect(trail.body.origin_url).to.equal('https://github.com/acme/backend/actions/runs/4242');
    expect(trail.body.is_compliant).to.equal(true);
    const [attestation] = trail.body.attestations;
    expect(attestation).to.include({
      attestation_name: 'junit',
      attestation_type: 'junit',
      is_compliant: true,
      origin_url: 'https://github.com/acme/backend/actions/runs/4242',
    });
    expect(attestation.junit_results).to.deep.equal([
      { name: 'invoice.RoundingTest', failures: 0, errors: 0, skipped: 1, total: 3, duration: 0.42, timestamp: Date.parse('2026-11-20T13:05:00Z') / 1000 },
      { name: 'invoice.TaxTest', failures: 0, errors: 0, skipped: 0, total: 2, duration: 1.5, timestamp: null },
    ]);
    expect(attestation.git_commit_info).to.deep.equal(trail.body.git_commit_info);
    expect(attestation.repo_info).to.deep.equal(trail.body.repo_info);
    expect(attestation.artifact_fingerprint ?? null).to.equal(null);
    expect(attestation.attachment.name).to.equal('junit-results.tar.gz');

    const download = await fetch(`${server.url}${attestation.attachment._links.download.href.replace(/^https?:\/\/[^/]+/, '')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(sha256(bytes)).to.equal(attestation.attachment.sha256);
    const entries: string[] = [];
    for await (const entry of Readable.from([bytes]).pipe(createGunzip()).pipe(tar.extract())) {
      entries.push(entry.header.name);
      entry.resume();
    }
    expect(entries.sort()).to.deep.equal(['build/test-results/TEST-rounding.xml', 'tax/junit-tax.xml']);
  });

  it('pull_request: attests a failure to the head commit, sets the outputs and fails the step', async () => {
    const fingerprint = sha256(Buffer.from('acme/backend:1.4.2'));
    const run = await runAction(
      'pull_request',
      { 'reports/junit.xml': failingXml },
      { 'attestation-name': 'unit-tests', description: 'PR 87', 'artifact-fingerprint': fingerprint },
      { checkout: true },
    );
    expect(run.status).to.equal(1);
    expect(run.stdout).to.contain('::error::1 test(s) failed and 0 errored (of 2)');
    // The failed test annotated on the diff: the frame in the failure text names vat.ts, which the checkout has.
    expect(commands(run.stdout, 'error')).to.include(
      '::error title=vat.ReverseChargeTest › b2b within EU,file=vat.ts,line=42::expected 0.00 but was 19.00%0AAssertionError at vat.ts:42',
    );
    const head = run.head!;
    expect(run.outputs).to.include({
      total: '2',
      failed: '1',
      passed: '1',
      compliant: 'false',
      'trail-url': `${server.url}/ui/acme/flows/backend/trails/${head}`,
    });
    expect(run.summary).to.contain('❌ 1 failed, 0 errored').and.to.contain('**vat.ReverseChargeTest › b2b within EU** (failure): expected 0.00 but was 19.00');
    const trail = await call(server.url, token, 'GET', `/api/v2/trails/acme/backend/${head}`);
    // Message, author and time from the checkout of the PR head; the PR opener ('grace' in the
    // payload) is not the commit's author, so no author_username; a depth-1 clone knows no parents.
    expect(withoutNulls(trail.body.git_commit_info)).to.deep.equal({
      sha1: head,
      branch: 'feature/vat-reverse-charge',
      url: `https://github.com/acme/backend/commit/${head}`,
      message: 'Add VAT reverse charge\n\nFor B2B invoices.',
      author: 'Grace Hopper <grace@acme.example>',
      timestamp: Date.parse('2026-11-21T16:30:00Z') / 1000,
    });
    expect(withoutNulls(trail.body.repo_info)).to.deep.equal({
      name: 'acme/backend',
      url: 'https://github.com/acme/backend',
      id: '734512',
      description: 'Invoicing backend',
      provider: 'github',
    });
    expect(trail.body.origin_url).to.equal('https://github.com/acme/backend/actions/runs/4242');
    expect(trail.body.description).to.equal('PR 87');
    const [attestation] = trail.body.attestations;
    expect(attestation).to.include({
      attestation_name: 'unit-tests',
      is_compliant: false,
      artifact_fingerprint: fingerprint,
      origin_url: 'https://github.com/acme/backend/actions/runs/4242',
    });
    expect(attestation.git_commit_info).to.deep.equal(trail.body.git_commit_info);
    expect(attestation.repo_info).to.deep.equal(trail.body.repo_info);
    expect(attestation.attachment.name).to.equal('junit.xml');
    expect(attestation.attachment.sha256).to.equal(sha256(Buffer.from(failingXml)));
    expect(trail.body.is_compliant).to.equal(false);
  });

  it("workflow_run (a fork's results attested from the base repository): the trail is the fork's head commit", async () => {
    const run = await runAction('workflow_run', { 'test-results/junit.xml': failingXml }, { 'junit-paths': 'test-results', annotations: '0' });
    expect(run.status).to.equal(1);
    const sha: string = run.payload.workflow_run.head_sha;
    expect(run.outputs).to.include({ 'trail-url': `${server.url}/ui/acme/flows/backend/trails/${sha}`, failed: '1' });
    expect(commands(run.stdout, 'error')).to.have.length(1);
    const trail = await call(server.url, token, 'GET', `/api/v2/trails/acme/backend/${sha}`);
    expect(withoutNulls(trail.body.git_commit_info)).to.deep.equal({
      sha1: sha,
      branch: 'fix-vat-typo',
      message: 'Fix a typo in the VAT rates',
      author: 'Eve Fork <eve@fork.example>',
      timestamp: Date.parse('2026-11-22T08:00:00Z') / 1000,
      url: `https://github.com/acme/backend/commit/${sha}`,
    });
    expect(trail.body.attestations[0]).to.include({ attestation_name: 'junit', is_compliant: false });
  });
});

/** The object without its null fields (the API answers absent optional fields as null). */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}
