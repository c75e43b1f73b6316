// @database
/**
 * The console in a real browser (Debian's Chromium driven by playwright-core): the README's
 * delivery story is played through the API with hostile text in every free-form field, then a
 * person signs in through the form and reads the overview, a flow and a trail, downloads an
 * attachment, and the sessions end when they should. Runs on SQLite and on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createToken } from '@trailproof/server';
import { assertInert } from '../../../../test/support/browser-checks.ts';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const F1 = sha('payments:1');
const F2 = sha('payments:2');
const ROGUE = sha('rogue:1');
const script = '<script>alert(1)</script>';
const img = '"><img src=x onerror=alert(1)>';
const jsUrl = 'javascript:alert(1)';
const hostile = `${script} ${img}`;
const template = [
  'version: 1',
  'trail:',
  '  attestations:',
  '  - name: unit-tests',
  '    type: junit',
  '  artifacts:',
  '  - name: api',
  '    attestations:',
  '    - name: integration',
  '      type: junit',
].join('\n');
const failingXml = `<?xml version="1.0"?>
<testsuites><testsuite name="checkout" tests="3" failures="1"><testcase classname="Cart" name="adds_item"/>
<testcase classname="Cart" name="applies_discount"><failure message="expected 90 but was 100 &lt;script&gt;alert(1)&lt;/script&gt;">at Cart.test.ts:42 &quot;&gt;&lt;img src=x onerror=alert(1)&gt;</failure></testcase>
<testcase classname="Cart" name="skips"><skipped/></testcase></testsuite></testsuites>
`;
const suite = (name: string, failures: number, total = 3) => ({
  name,
  failures,
  errors: 0,
  skipped: failures ? 1 : 0,
  total,
  duration: 1.5,
  timestamp: 1_763_800_000,
});

describe('the console in a browser', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;
  const dialogs: string[] = [];
  const documents: Array<{ url: string; csp: string | null; status: number }> = [];

  const api = async (method: string, path: string, options: Parameters<TestServer['request']>[2] = {}) => {
    const res = await server.request(method, `/api/v2${path}`, options);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    return res.body;
  };
  const begin = (name: string, commit: string, extra: Record<string, unknown> = {}) =>
    api('PUT', '/trails/acme/payments', {
      form: {
        data_json: JSON.stringify({
          name,
          git_commit_info: { sha1: commit, branch: 'main', author: 'Ada', message: `Fix ${hostile}`, url: jsUrl },
          repo_info: { name: 'acme/payments', url: 'https://git.example.com/acme/payments' },
          ...extra,
        }),
      },
    });
  const junit = (trail: string, data: Record<string, unknown>, xml?: string) =>
    api('POST', `/attestations/acme/payments/trail/${trail}/junit`, {
      form: { data_json: JSON.stringify(data), ...(xml ? { attachment_file: { content: xml, name: 'junit.xml' } } : {}) },
    });

  /** A browser context whose every page reports dialogs and its documents' headers. */
  const newContext = async (): Promise<BrowserContext> => {
    const context = await browser.newContext({ acceptDownloads: true });
    context.on('page', watch);
    return context;
  };
  const watch = (page: Page) => {
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('response', (res) => {
      if (res.request().resourceType() === 'document')
        documents.push({ url: res.url(), csp: res.headers()['content-security-policy'] ?? null, status: res.status() });
    });
  };
  const signIn = async (context: BrowserContext, token: string) => {
    const page = await context.newPage();
    await page.goto(`${server.url}/ui/sign-in`);
    await page.fill('#token', token);
    await page.click('button[type=submit]');
    return page;
  };
  const text = (page: Page) => page.innerText('main');

  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath });
    server = await startTestServer();
    await api('PUT', '/flows/acme/template_file', {
      form: {
        data_json: JSON.stringify({ name: 'payments', description: `Payments ${hostile}`, visibility: 'private' }),
        template_file: { content: template },
      },
    });
    await begin('build-1', '1'.repeat(40), { description: `Build one ${hostile}`, user_data: { note: hostile, link: jsUrl }, origin_url: jsUrl });
    await junit('build-1', { attestation_name: 'unit-tests', junit_results: [suite(`checkout ${script}`, 1)], user_data: { why: img } }, failingXml);
    await junit('build-1', { attestation_name: 'integration', artifact_fingerprint: F1, target_artifacts: ['api'], junit_results: [suite('api', 0)] });
    await api('POST', '/attestations/acme/payments/trail/build-1/generic', {
      form: {
        data_json: JSON.stringify({
          attestation_name: 'manual-test',
          is_compliant: true,
          description: `Checked by hand ${hostile}`,
          user_data: { tester: script },
        }),
      },
    });
    await begin('build-2', '2'.repeat(40));
    await junit('build-2', { attestation_name: 'unit-tests', junit_results: [suite('checkout', 2)] });
    await junit('build-2', { attestation_name: 'unit-tests', junit_results: [suite('checkout', 0)] });
    await junit('build-2', { attestation_name: 'integration', artifact_fingerprint: F2, target_artifacts: ['api'], junit_results: [suite('api', 0)] });
    await api('PUT', '/environments/acme', { json: { name: 'production', type: 'K8S', description: 'Production' } });
    const pod = (name: string, fingerprint: string) => ({
      podName: name,
      namespace: 'prod',
      digests: { [`acme/${name}`]: fingerprint },
      creationTimestamp: 1_763_800_000,
    });
    await api('PUT', '/environments/acme/production/report/K8S', { json: { artifacts: [pod('payments', F2), pod('rogue', ROGUE)] } });
    await api('POST', '/approvals/acme/payments', {
      json: { artifact_fingerprint: F2, description: `Release 2 ${hostile}`, src_commit_list: ['2'.repeat(40)], environment: 'production' },
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  afterEach(() => {
    expect(dialogs, 'no script ran').to.deep.equal([]);
    for (const d of documents) {
      expect(d.csp, d.url).to.equal(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
      );
    }
  });

  it('sends a signed-out person to the sign-in form, which works from the keyboard alone', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/ui/acme/flows/payments`);
    expect(new URL(page.url()).pathname).to.equal('/ui/sign-in');
    expect(await page.innerText('h1')).to.equal('Sign in');
    // From the top of the page: Tab through the header until the token field has the focus.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let focused = '';
    for (let i = 0; i < 5 && focused !== 'token'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.id ?? '');
    }
    expect(focused).to.equal('token');
    expect(await page.getAttribute('label[for=token]', 'for')).to.equal('token');
    await page.keyboard.type(server.readToken);
    await Promise.all([page.waitForURL(/\/ui\/acme\/flows\/payments$/), page.keyboard.press('Enter')]);
    expect(await page.innerText('h1')).to.equal('Flow payments');
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).to.deep.equal([['trailproof_session', true, 'Strict']]);
    expect(await page.evaluate(() => document.cookie)).to.equal('');
    expect(await page.content()).not.to.contain(server.readToken.slice(20));
    await context.close();
  });

  it('walks overview → flow → trail and reads compliance, counts, reasons and failed tests; hostile text stays text', async () => {
    const context = await newContext();
    const page = await signIn(context, server.readToken);
    await page.waitForURL(/\/ui\/acme$/);
    const overview = await text(page);
    expect(overview).to.contain('production: 2 artifacts running, 1 attested by a compliant trail, 1 not.');
    const flowRow = await page.innerText('tr:has(a:text-is("payments"))');
    expect(flowRow).to.contain('build-2').and.contain('COMPLIANT').and.not.contain('NON-COMPLIANT');
    expect(overview).to.contain(`Payments ${hostile}`);
    await assertInert(page);

    await page.click('a:text-is("payments")');
    await page.waitForURL(/\/ui\/acme\/flows\/payments$/);
    const rows = await page.$$eval('#trail-list tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.innerText.trim())));
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r[6], r[7], r[8]])).to.deep.equal([
      ['build-2', '✓ COMPLIANT', '2222222', 'main', 'Ada', '6', '0', '0'],
      ['build-1', '✗ NON-COMPLIANT', '1111111', 'main', 'Ada', '4', '1', '1'],
    ]);
    expect(await page.innerText('section[aria-labelledby=template] pre')).to.equal(template);
    // The charts say in words what they draw: the SVGs' titles and the tables beside them.
    expect(await page.$$eval('figure svg > title', (titles) => titles.map((t) => t.textContent))).to.deep.equal([
      'Test results of the last 2 trails',
      'Compliance over time',
    ]);
    expect(await page.$$eval('figure svg title', (titles) => titles.map((t) => t.textContent))).to.include.members([
      'build-1: 4 passed, 1 failed, 1 skipped',
      'build-2: 6 passed, 0 failed, 0 skipped',
    ]);
    expect(await page.innerText('#trails')).to.equal('Trails');
    await assertInert(page);

    await page.click('a:text-is("build-1")');
    await page.waitForURL(/\/trails\/build-1$/);
    const trail = await text(page);
    expect(await page.innerText('h1')).to.equal('Trail build-1 ✗ NON-COMPLIANT');
    expect(await page.innerText('ul.reasons')).to.equal("attestation 'unit-tests' is not compliant");
    expect(trail).to.contain(`Build one ${hostile}`).and.contain(`Fix ${hostile}`).and.contain(`Checked by hand ${hostile}`);
    expect(trail).to.contain('Cart.applies_discount').and.contain('expected 90 but was 100 <script>alert(1)</script>');
    expect(trail).to.contain('Tests: 3 in 1 suite: 1 passed, 1 failed, 0 errors, 1 skipped');
    expect(trail).to.contain(`checkout ${script}`).and.contain(jsUrl);
    expect(await page.innerText('section[aria-labelledby=compliance] table')).to.contain('ATTESTED (not in the template)');
    expect(await page.$$eval('article .badge', (badges) => badges.map((b) => b.textContent))).to.include.members(['Latest of its name: counts for compliance']);
    expect(trail).to.contain('Where its artifacts were deployed').and.contain('Its artifacts have not been deployed');
    await assertInert(page);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a:text("Download junit.xml")')]);
    expect(download.suggestedFilename()).to.equal('junit.xml');
    expect(await readFile((await download.path())!, 'utf8')).to.equal(failingXml);
    expect(trail).to.contain(`SHA-256 ${sha(failingXml)}`);
    await context.close();
  });

  it('shows earlier attestations of a name as replaced, and where a trail’s artifacts run', async () => {
    const context = await newContext();
    const page = await signIn(context, server.readToken);
    await page.goto(`${server.url}/ui/acme/flows/payments/trails/build-2`);
    const badges = await page.$$eval('article h3', (hs) => hs.map((h) => h.textContent!.replace(/\s+/g, ' ').trim()));
    expect(badges.filter((b) => b.startsWith('unit-tests'))).to.have.length(2);
    expect(badges.find((b) => b.startsWith('unit-tests')))
      .to.contain('NON-COMPLIANT')
      .and.contain('Earlier: replaced by a later one');
    const deployed = await page.innerText('section[aria-labelledby=deployed] tbody');
    expect(deployed).to.contain('production').and.contain(F2.slice(0, 12));
    // From the flow to its approvals: the one requested for build 2's artifact, pending.
    await page.goto(`${server.url}/ui/acme/flows/payments`);
    await Promise.all([page.waitForURL(/\/flows\/payments\/approvals$/), page.click('a:text("Approvals of this flow")')]);
    expect(await page.innerText('h1')).to.equal('Approvals of payments');
    expect(await text(page)).to.contain('PENDING');
    await assertInert(page);
    await context.close();
  });

  it("answers another organisation's pages 404, and ends a session whose token is revoked", async () => {
    const globex = await newContext();
    const other = await signIn(globex, server.otherToken);
    await other.waitForURL(/\/ui\/globex$/);
    const res = await other.goto(`${server.url}/ui/acme/flows/payments`);
    expect(res!.status()).to.equal(404);
    expect(await other.innerText('main'))
      .to.contain('There is no such page.')
      .and.not.contain('payments');
    await globex.close();

    const { id, token } = await createToken(server.store, { org: 'acme', readOnly: true });
    const context = await newContext();
    const page = await signIn(context, token);
    await page.waitForURL(/\/ui\/acme$/);
    await server.store.revokeToken(id, Date.now() / 1000);
    await page.reload();
    expect(new URL(page.url()).pathname).to.equal('/ui/sign-in');

    await signIn(context, server.readToken);
    const signedIn = context.pages().at(-1)!;
    await signedIn.waitForURL(/\/ui\/acme$/);
    await Promise.all([signedIn.waitForURL(/\/ui\/sign-in$/), signedIn.click('button:text("Sign out")')]);
    await signedIn.goto(`${server.url}/ui/acme`);
    expect(new URL(signedIn.url()).pathname).to.equal('/ui/sign-in');
    await context.close();
  });

  it('does not take a session cookie of this server on another database', async () => {
    const context = await newContext();
    const page = await signIn(context, server.readToken);
    await page.waitForURL(/\/ui\/acme$/);
    const [cookie] = await context.cookies();
    const other = await startTestServer();
    try {
      await context.addCookies([{ name: cookie!.name, value: cookie!.value, url: other.url, httpOnly: true, sameSite: 'Strict' }]);
      const there = await context.newPage();
      await there.goto(`${other.url}/ui/acme`);
      expect(new URL(there.url()).pathname).to.equal('/ui/sign-in');
    } finally {
      await other.close();
      await context.close();
    }
  });
});
