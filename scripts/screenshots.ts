/**
 * Regenerates the console's screenshots in docs/images/ (shown in README):
 *
 *   npx tsx scripts/screenshots.ts
 *
 * Starts a server on a temporary SQLite file, plays README's delivery story through the API
 * (a flow with a template, three builds with JUnit results, three reports of production,
 * approvals), signs in through the console's form in Debian's Chromium (playwright-core;
 * TRAILPROOF_CHROMIUM names another binary) and writes console-overview.png, console-trail.png,
 * console-environment.png, console-trails-dark.png (dark mode) and console-trail-phone.png (390 px).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createToken, openSqliteStore, silentLogger, startServer } from '@trailproof/server';

const out = fileURLToPath(new URL('../docs/images/', import.meta.url));
const fp = (text: string) => createHash('sha256').update(text).digest('hex');
const [F1, F2, F3] = [fp('payments:1'), fp('payments:2'), fp('payments:3')];
const [C1, C2, C3] = ['1', '2', '3'].map((digit) => digit.repeat(40)) as [string, string, string];
const template =
  'version: 1\ntrail:\n  attestations:\n  - name: unit-tests\n    type: junit\n  artifacts:\n  - name: api\n    attestations:\n    - name: integration\n      type: junit\n';
const junitXml = '<testsuites tests="20"><testsuite name="suite" tests="20" failures="0"/></testsuites>\n';

const dir = mkdtempSync(join(tmpdir(), 'trailproof-screenshots-'));
const store = await openSqliteStore(join(dir, 'trailproof.db'));
const server = await startServer({ store, logger: silentLogger, port: 0, host: '127.0.0.1' });
try {
  const { token } = await createToken(store, { org: 'acme', description: 'screenshots' });
  const api = async (method: string, path: string, body: FormData | object) => {
    const form = body instanceof FormData;
    const res = await fetch(`${server.url}/api/v2${path}`, {
      method,
      body: form ? body : JSON.stringify(body),
      headers: { authorization: `Bearer ${token}`, ...(form ? {} : { 'content-type': 'application/json' }) },
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  };
  const form = (data: object, files: Record<string, [string, string]> = {}) => {
    const f = new FormData();
    f.append('data_json', JSON.stringify(data));
    for (const [field, [content, name]] of Object.entries(files)) f.append(field, new Blob([content]), name);
    return f;
  };
  const begin = (trail: string, commit: string, message: string) =>
    api(
      'PUT',
      '/trails/acme/payments',
      form({
        name: trail,
        git_commit_info: {
          sha1: commit,
          branch: 'main',
          author: 'Grace Hopper <grace@example.com>',
          message,
          url: `https://git.example.com/acme/payments/commit/${commit}`,
        },
        repo_info: { name: 'acme/payments', url: 'https://git.example.com/acme/payments' },
      }),
    );
  const junit = (trail: string, name: string, failures: number, fingerprint?: string) =>
    api(
      'POST',
      `/attestations/acme/payments/trail/${trail}/junit`,
      form(
        {
          attestation_name: name,
          ...(fingerprint ? { artifact_fingerprint: fingerprint, target_artifacts: ['api'] } : {}),
          junit_results: [{ name: 'suite', failures, errors: 0, skipped: failures ? 1 : 0, total: 20, duration: 2.5 }],
        },
        { attachment_file: [junitXml, 'junit.xml'] },
      ),
    );
  const pod = (f: string) => ({
    podName: `payments-${f.slice(0, 6)}`,
    namespace: 'prod',
    digests: { [`acme/payments@${f.slice(0, 12)}`]: f },
    creationTimestamp: Math.floor(Date.now() / 1000),
  });
  const report = (...fingerprints: string[]) => api('PUT', '/environments/acme/production/report/K8S', { artifacts: fingerprints.map(pod) });

  await api(
    'PUT',
    '/flows/acme/template_file',
    form({ name: 'payments', description: 'The payments service', visibility: 'private' }, { template_file: [template, 'template.yml'] }),
  );
  await begin('build-1', C1, 'Add card payments');
  await junit('build-1', 'unit-tests', 0);
  await junit('build-1', 'integration', 2, F1);
  await junit('build-1', 'integration', 0, F1);
  await begin('build-2', C2, 'Retry declined payments');
  await junit('build-2', 'unit-tests', 0);
  await junit('build-2', 'integration', 0, F2);
  await begin('build-3', C3, 'Round currency amounts');
  await junit('build-3', 'unit-tests', 1);
  await junit('build-3', 'integration', 0, F3);
  await api('PUT', '/environments/acme', { name: 'production', type: 'K8S', description: 'Production cluster' });
  await report(F1);
  await report(F2);
  await report(F2, F3);
  await api('POST', '/approvals/acme/payments', { artifact_fingerprint: F2, description: 'Release 2', src_commit_list: [C2, C1], environment: 'production' });
  await api('PUT', '/approvals/acme/payments/1', { state: 'APPROVED', approved_by: 'grace', comment: 'ship it' });
  await api('POST', '/approvals/acme/payments', {
    artifact_fingerprint: F3,
    description: 'Release 3',
    src_commit_list: [C3],
    approvals: [{ state: 'UNAPPROVED', approved_by: 'grace', comment: 'unit tests fail' }],
  });

  const browser = await chromium.launch({ executablePath: process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(`${server.url}/ui/sign-in`);
    await page.fill('#token', token);
    await page.click('button[type=submit]');
    await page.waitForURL('**/ui/acme');
    mkdirSync(out, { recursive: true });
    for (const [file, path] of [
      ['console-overview.png', '/ui/acme'],
      ['console-trail.png', '/ui/acme/flows/payments/trails/build-1'],
      ['console-environment.png', '/ui/acme/environments/production'],
    ] as const) {
      const res = await page.goto(server.url + path);
      if (res?.status() !== 200) throw new Error(`${path} answered ${res?.status()}`);
      await page.screenshot({ path: join(out, file), fullPage: true });
      process.stdout.write(`wrote docs/images/${file}\n`);
    }
    // The organisation's trails in dark mode, and the same on a phone (390 px wide).
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}/ui/acme/trails`);
    await page.screenshot({ path: join(out, 'console-trails-dark.png'), fullPage: true });
    process.stdout.write('wrote docs/images/console-trails-dark.png\n');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/ui/acme/flows/payments/trails/build-1`);
    await page.screenshot({ path: join(out, 'console-trail-phone.png') });
    process.stdout.write('wrote docs/images/console-trail-phone.png\n');
  } finally {
    await browser.close();
  }
} finally {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
