// @database
/**
 * The views of Snyk, Sonar, Jira, decisions, overrides and SBOMs in a real browser (Debian's
 * Chromium driven by playwright-core), on the trail page (whole rows) and the artifact page
 * (glances): each attested through the API with hostile text in every free-form field, read as a
 * person reads it; no script, image, handler or javascript: link comes of it.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { assertInert as assertInertPage, signedInPage } from './browser-fixture.ts';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';
const script = '<script>alert(1)</script>';
const img = '"><img src=x onerror=alert(1)>';
const hostile = `${script} ${img}`;
const jsUrl = 'javascript:alert(1)';
const commit = 'a'.repeat(40);
const fingerprint = createHash('sha256').update('evidence-kinds').digest('hex');

describe('the console shows Snyk, Sonar, Jira, decisions, overrides and SBOMs in a browser; hostile text stays text', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  const call = async (method: string, path: string, body: { form?: Record<string, string | { content: string; name: string }>; json?: unknown }) => {
    const res = await server.request(method, `/api/v2${path}`, body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  const attest = (kind: string, data: Record<string, unknown>, attachment?: { content: string; name: string }) =>
    call('POST', `/attestations/acme/evidence/trail/t1/${kind}`, {
      form: { data_json: JSON.stringify({ artifact_fingerprint: fingerprint, ...data }), ...(attachment ? { attachment_file: attachment } : {}) },
    });

  before(async () => {
    server = await startTestServer();
    await call('PUT', '/trails/acme/evidence', { form: { data_json: JSON.stringify({ name: 't1', git_commit_info: { sha1: commit, branch: 'main' } }) } });
    await call('POST', '/artifacts/acme/evidence', {
      json: {
        fingerprint,
        filename: 'shop',
        git_commit: commit,
        git_commit_info: null,
        build_url: 'https://ci.example.com/runs/1',
        commit_url: 'https://git.example.com/acme/shop',
        template_reference_name: 'shop',
        trail_name: 't1',
      },
    });
    const finding = { id: `SNYK-JS-${hostile}`, message: `Pollution ${hostile}`, locations: [{ uri: 'package.json' }] };
    await attest('snyk', {
      attestation_name: 'snyk',
      snyk_results: {
        schema_version: 1,
        tool: { name: `Snyk ${hostile}`, version: '1.0' },
        results: [{ high_count: 1, medium_count: 0, low_count: 2, high: [finding] }],
      },
    });
    await attest('sonar', {
      attestation_name: 'sonar',
      sonar_results: {
        serverUrl: 'https://sonar.example.com',
        taskId: 'AY1',
        status: 'SUCCESS',
        analysedAt: '2026-11-30T10:00:00+0000',
        revision: commit,
        project: { key: 'shop', name: `Shop ${hostile}`, url: jsUrl },
        qualityGate: {
          status: 'ERROR',
          conditions: [{ metric: `coverage ${script}`, errorThreshold: '80', operator: 'LESS_THAN', value: '50', status: 'ERROR' }],
        },
      },
    });
    await attest('jira', {
      attestation_name: 'jira',
      jira_results: [
        { issue_id: 'SHOP-1', issue_url: 'https://acme.atlassian.net/browse/SHOP-1', issue_exists: true, issue_fields: { summary: `Checkout ${hostile}` } },
        { issue_id: 'SHOP-404', issue_url: jsUrl, issue_exists: false },
      ],
    });
    await attest('system', { attestation_name: 'gate', type_name: 'decision', control: `RCTL-043 ${script}`, attestation_data: { is_compliant: false } });
    const sbom = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      metadata: { component: { type: 'application', name: `shop ${hostile}` } },
      components: [{ type: 'library', name: 'left-pad' }],
    });
    const sha256 = createHash('sha256').update(sbom).digest('hex');
    await attest(
      'system',
      {
        attestation_name: 'sbom',
        type_name: 'sbom',
        attestation_data: {
          format: 'cyclonedx-1.6',
          original_fingerprint: sha256,
          document: {
            created_at: null,
            tools: [`syft ${script}`],
            subject: { name: `shop ${hostile}`, version: null, purl: null, sha256: null },
            package_count: 2,
          },
        },
      },
      { content: sbom, name: 'sbom.json' },
    );
    await call('POST', '/attestations/acme/evidence/trail/t1/override', {
      json: {
        attestation_name: 'gate',
        artifact_fingerprint: fingerprint,
        reason: `CAB approved ${hostile}`,
        new_compliance_status: true,
        original_attestation_type: 'decision',
      },
    });
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    page = await signedInPage(await browser.newContext(), server.url, server.readToken, dialogs);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const assertInert = async () => {
    await assertInertPage(page);
    expect(dialogs).to.deep.equal([]);
  };

  /** What each kind's view says, on either page. */
  const expectKinds = (main: string) => {
    expect(main).to.contain('Not compliant: Snyk found 1 high, 0 medium and 2 low severity vulnerabilities');
    expect(main).to.contain(`Snyk ${hostile} 1.0`).and.contain(`SNYK-JS-${hostile}`).and.contain(`Pollution ${hostile}`);
    expect(main).to.contain(`Not compliant: the quality gate is ERROR: coverage ${script} 50 (LESS_THAN 80)`).and.contain(`Shop ${hostile}`);
    expect(main).to.contain('Not compliant: Jira has no issue SHOP-404').and.contain(`Checkout ${hostile}`);
    expect(main).to.contain(`CAB approved ${hostile}`).and.contain('which was not compliant: now compliant');
    expect(main).to.contain('Not compliant: the document does not bear out the summary sent: package_count: the document lists 1, the summary says 2');
    expect(main).to.contain(`shop ${hostile}`).and.contain(`syft ${script}`).and.contain('Read by the server: cyclonedx-1.6, 1 packages');
  };

  it('the trail page: each kind as a person reads it, and why it is not compliant', async () => {
    await page.goto(`${server.url}/ui/acme/flows/evidence/trails/t1`);
    const main = await page.innerText('main');
    expectKinds(main);
    expect(main).to.contain(`Decision on control RCTL-043 ${script}: not compliant`);
    expect(await page.getAttribute('li[data-issue="SHOP-1"] a', 'href')).to.equal('https://acme.atlassian.net/browse/SHOP-1');
    // The override links to what it overrode, on the same page.
    const target = await page.getAttribute('.override a', 'href');
    expect(await page.locator(target!).count()).to.equal(1);
    await assertInert();
  });

  it('the artifact page: the same views from glances of the attestations that count', async () => {
    await page.goto(`${server.url}/ui/acme/artifacts/${fingerprint}`);
    expectKinds(await page.innerText('main'));
    await assertInert();
  });
});
