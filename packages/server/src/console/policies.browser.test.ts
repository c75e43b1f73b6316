// @database
/**
 * The policies, verdicts and log pages in a real browser (Debian's Chromium driven by
 * playwright-core), on a story whose policy, artifact name and exception carry markup: a person
 * reads a policy's versions and YAML, sees prod judged by it, opens a verdict and reads why each
 * rule came out as it did (the exception that waived one, the attestation that failed another),
 * then follows the verdict to its record's inclusion proof, which is the API's.
 */
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { sha } from '../../../../test/support/console-story.ts';
import { assertInert as assertPageInert, watchPage } from '../../../../test/support/browser-checks.ts';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';
const hostileName = '<img src=x onerror=alert(2)>';
const policyV1 = '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  provenance:\n    required: true\n';
const policyV2 = `_schema: https://kosli.com/schemas/policy/environment/v1
# <script>alert(1)</script>
artifacts:
  provenance:
    required: true
  trail-compliance:
    required: true
    exceptions:
      - if: \${{ artifact.name == "${hostileName}" }}
  attestations:
    - name: unit
      type: junit
`;

/** Trail b1 reports api with passing tests, b2 reports web (named with markup) with failing ones; prod runs both and judges them by prod-policy v2. */
async function playPolicyStory(server: TestServer): Promise<void> {
  const call = async (method: string, path: string, options: Parameters<TestServer['request']>[2]) => {
    const res = await server.request(method, `/api/v2${path}`, options);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  for (const [trail, name, failures] of [
    ['b1', 'api', 0],
    ['b2', hostileName, 2],
  ] as const) {
    await call('PUT', '/trails/acme/app', { form: { data_json: JSON.stringify({ name: trail }) } });
    await call('POST', '/artifacts/acme/app', {
      json: {
        fingerprint: sha(name),
        filename: name,
        git_commit: 'c'.repeat(40),
        build_url: 'https://ci.example.com/1',
        commit_url: 'https://git.example.com/c',
        template_reference_name: 'image',
        trail_name: trail,
      },
    });
    const junit = { attestation_name: 'unit', junit_results: [{ name: 's', failures, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }] };
    await call('POST', `/attestations/acme/app/trail/${trail}/junit`, { form: { data_json: JSON.stringify({ ...junit, artifact_fingerprint: sha(name) }) } });
  }
  for (const [yaml, comment] of [
    [policyV1, 'first'],
    [policyV2, 'tests too'],
  ]) {
    const payload = { name: 'prod-policy', description: 'Prod <script>alert(4)</script>', comment, type: 'env' };
    await call('PUT', '/policies/acme', { form: { payload: JSON.stringify(payload), policy_file: { content: yaml!, name: 'policy.yml' } } });
  }
  await call('PUT', '/environments/acme', { json: { name: 'prod', type: 'K8S' } });
  const pod = (name: string) => ({ podName: `p-${sha(name).slice(0, 6)}`, namespace: 'ns', digests: { [name]: sha(name) }, creationTimestamp: 1_764_000_000 });
  await call('PUT', '/environments/acme/prod/report/K8S', { json: { artifacts: [pod('api'), pod(hostileName)] } });
  await call('POST', '/environments/acme/prod/policies', { json: { policy_names: ['prod-policy'] } });
  for (const name of ['api', hostileName]) await call('GET', `/asserts/acme/fingerprint/${sha(name)}?environment_name=prod`, {});
}

describe('console pages in a browser: policies, verdicts and their log records', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let seen: ReturnType<typeof watchPage>;

  before(async () => {
    server = await startTestServer();
    await playPolicyStory(server);
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    page = await browser.newPage();
    seen = watchPage(page);
    await page.goto(`${server.url}/ui/acme`);
    await page.fill('#token', server.readToken);
    await page.press('#token', 'Enter');
    await page.waitForURL('**/ui/acme');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const assertInert = () => assertPageInert(page);

  it('lists the policies with their latest version and environments, and shows every version with its YAML as text', async () => {
    await page.click('header >> text=Policies');
    expect(await page.innerText('tr[data-policy="prod-policy"]'))
      .to.contain('Prod <script>alert(4)</script>')
      .and.match(/\t2\t/)
      .and.contain('prod');
    await assertInert();
    await page.click('tr[data-policy="prod-policy"] >> text=prod-policy');
    await page.waitForURL('**/ui/acme/policies/prod-policy');
    expect(await page.innerText('[data-testid=policy-environments]')).to.equal('prod');
    const versions = await page.locator('section.policy-version').evaluateAll((sections) => sections.map((s) => s.getAttribute('data-version')));
    expect(versions).to.deep.equal(['2', '1']);
    expect(await page.innerText('section[data-version="2"] h3')).to.contain('latest');
    expect(await page.innerText('section[data-version="2"] pre')).to.equal(policyV2);
    expect(await page.innerText('section[data-version="1"] pre')).to.equal(policyV1);
    expect(await page.innerText('section[data-version="2"]'))
      .to.contain(sha(policyV2))
      .and.contain('tests too');
    await assertInert();
  });

  it("shows prod's attached policy and judges each running artifact by it, in words of the policy", async () => {
    await page.goto(`${server.url}/ui/acme/environments/prod`);
    expect(await page.innerText('[data-testid=environment-policies]')).to.equal('prod-policy');
    expect(await page.getAttribute('[data-testid=environment-policies] a', 'href')).to.equal('/ui/acme/policies/prod-policy');
    expect(await page.innerText('[data-testid=running-summary]')).to.match(/^prod: 2 artifacts running, 1 pass its policies, 1 not/);
    expect(await page.innerText('tr[data-artifact="api"]')).to.contain('✓ PASSES ITS POLICIES');
    expect(await page.innerText(`tr[data-artifact="${hostileName}"]`))
      .to.contain('✗ FAILS ITS POLICIES')
      .and.contain('app/b2');
    await assertInert();
  });

  it('lists the verdicts and shows why each rule came out as it did: the exception that waived one, the attestation that failed another', async () => {
    await page.click('header >> text=Verdicts');
    expect(await page.innerText('[data-testid=verdicts-summary]')).to.match(/^2 verdicts recorded, newest first/);
    // Recorded at attach, in the snapshot's order; each assert answered the same record.
    const rows = await page.locator('table.verdicts tbody tr').allInnerTexts();
    const hostileRow = rows.findIndex((r) => r.includes(hostileName));
    expect(rows[hostileRow]).to.contain('environment prod').and.contain('prod-policy v2').and.contain('✗ NON-COMPLIANT');
    expect(rows[1 - hostileRow])
      .to.contain('api')
      .and.contain('✓ COMPLIANT');
    await assertInert();
    await page.click(`table.verdicts tbody tr >> nth=${hostileRow} >> a >> nth=0`);
    await page.waitForURL(/\/ui\/acme\/verdicts\/\d+$/);
    expect(await page.innerText('h1')).to.contain('✗ NON-COMPLIANT');
    const rule = (type: string) => page.innerText(`section[data-policy="prod-policy"] tr[data-rule="${type}"]`);
    expect(await rule('provenance'))
      .to.contain('provenance required')
      .and.contain('✓ SATISFIED')
      .and.match(/satisfied in app\/b2 \(report: log #\d+\)/);
    expect(await rule('trail-compliance'))
      .to.contain('– IGNORED')
      .and.contain(`not applicable in app/b2`)
      .and.contain(`waived by the exception \${{ artifact.name == "${hostileName}" }}`);
    expect(await rule('attestation'))
      .to.contain("a junit attestation named 'unit', compliant")
      .and.contain('✗ FAILED')
      .and.contain('a matching attestation is not compliant in app/b2')
      .and.match(/junit 'unit' non-compliant \(log #\d+\)/);
    expect(await page.innerText('table.verdict-evidence'))
      .to.contain('app/b2')
      .and.contain('✗ NON-COMPLIANT');
    await assertInert();
  });

  it("follows a verdict to its record in the log: the verdict's leaf, with the inclusion proof the API gives", async () => {
    const index = Number((await page.innerText('[data-testid=verdict-record]')).match(/log #(\d+)/)![1]);
    await page.click('[data-testid=verdict-record] a');
    await page.waitForURL(`**/ui/acme/log/${index}`);
    const record = JSON.parse(await page.innerText('[data-testid=log-record]'));
    expect(record.type).to.equal('verdict');
    expect(record.data.fingerprint).to.equal(sha(hostileName));
    const treeSize = Number((await page.innerText('[data-testid=proved-in]')).match(/of (\d+) leaves/)![1]);
    const api = await server.request('GET', `/api/v2/log/acme/proof/inclusion?index=${index}&tree_size=${treeSize}`);
    expect(api.status).to.equal(200);
    expect(await page.innerText('[data-testid=leaf-hash]')).to.equal(api.body.leaf_hash);
    expect(await page.locator('[data-testid=proof] li').allInnerTexts()).to.deep.equal(api.body.proof);
    await assertInert();
  });

  it('answers 404 for a verdict or a leaf that does not exist, and ignores a fingerprint filter that is not one', async () => {
    for (const path of ['verdicts/999999', 'verdicts/x', 'log/999999', 'log/-1', 'policies/nope']) {
      const res = await page.goto(`${server.url}/ui/acme/${path}`);
      expect(res!.status(), path).to.equal(404);
    }
    await page.goto(`${server.url}/ui/acme/verdicts?fingerprint=${encodeURIComponent('<script>alert(5)</script>')}`);
    expect(await page.innerText('[data-testid=verdicts-summary]')).to.match(/^2 verdicts recorded, newest first/);
    await page.goto(`${server.url}/ui/acme/verdicts?fingerprint=${sha('api')}`);
    expect(await page.innerText('[data-testid=verdicts-summary]')).to.match(new RegExp(`^1 verdict recorded for ${sha('api')}`));
    await assertInert();
  });

  it('sent the Content-Security-Policy with every page, and no dialog opened', () => {
    expect(seen.documents.length).to.be.greaterThan(8);
    for (const document of seen.documents) expect(document.csp, document.url).to.contain("script-src 'self'").and.contain("frame-ancestors 'none'");
    expect(seen.dialogs).to.deep.equal([]);
  });
});
