// @database
/** The committed bundles (light, plain data from the contract) and trailproof-junit, the same flow outside GitHub with TRAILPROOF_* variables. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { call, runProcess, type ServerProcess } from './support/processes.ts';
import { actionFixture, bundle, passingXml } from './support/action-run.ts';

const cliBundle = fileURLToPath(new URL('../packages/action/dist/cli.js', import.meta.url));

describe('the GitHub Action, run as the runner runs it', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let token = '';
  const { dirs } = actionFixture((started) => ({ server, token } = started));

  it('the bundle is light: no Octokit, no undici', () => {
    // 1,340,456 bytes with @actions/github (Octokit) and @actions/core's OIDC client (undici).
    expect(statSync(bundle).size).to.be.below(400_000);
    expect(statSync(cliBundle).size).to.be.below(400_000);
  });

  it('takes only plain data from the contract (limits, patterns, paths): no TypeBox, no Ajv', () => {
    for (const file of [bundle, cliBundle])
      expect(readFileSync(file, 'utf8'))
        .to.include('../schema/src/limits.ts')
        .and.not.match(/typebox|[/+]ajv@/i);
  });

  it('runs the same flow outside GitHub as trailproof-junit with TRAILPROOF_* variables', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trailproof-cli-'));
    dirs.push(root);
    writeFileSync(join(root, 'TEST-rounding.xml'), passingXml);
    const result = await runProcess(
      process.execPath,
      [cliBundle, '--org', 'acme', '--flow', 'backend', '--trail', 'jenkins-55', '--summary', join(root, 's.md')],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          TRAILPROOF_SERVER_URL: server.url,
          TRAILPROOF_API_TOKEN: token,
          TRAILPROOF_REPO_NAME: 'acme/backend',
          TRAILPROOF_ORIGIN_URL: 'https://jenkins.example.com/job/55',
        },
      },
    );
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('3 tests: 2 passed, 0 failed, 0 errors, 1 skipped, 0 flaky');
    // No workflow commands outside GitHub Actions (@actions/glob writes ::debug:: lines).
    expect(result.stdout).to.not.match(/^::/m);
    expect(readFileSync(join(root, 's.md'), 'utf8')).to.contain('invoice.RoundingTest');
    const trail = await call(server.url, token, 'GET', '/api/v2/trails/acme/backend/jenkins-55');
    expect(trail.body.origin_url).to.equal('https://jenkins.example.com/job/55');
    expect(trail.body.attestations[0].junit_results[0]).to.include({ name: 'invoice.RoundingTest', total: 3, skipped: 1 });
  });

  it('trailproof-junit --help lists every flag with its variable and default; --version; an unknown flag shows the usage and exits 2', async () => {
    const env = { PATH: process.env.PATH };
    const help = await runProcess(process.execPath, [cliBundle, '--help'], { env });
    expect(help.status).to.equal(0);
    const inputs = [
      ...readFileSync(new URL('../action.yml', import.meta.url), 'utf8')
        .split('\noutputs:')[0]!
        .matchAll(/^ {2}([a-z-]+):$/gm),
    ]
      .map((m) => m[1]!)
      .filter((n) => n !== 'annotations');
    expect(inputs.length).to.be.above(15);
    for (const input of inputs) expect(help.stdout).to.match(new RegExp(`^  --${input} \\S+ +TRAILPROOF_${input.toUpperCase().replace(/-/g, '_')} +\\S`, 'm'));
    expect(help.stdout).to.match(/^ {2}--reruns separate\|merge +TRAILPROOF_RERUNS +separate$/m);
    const version = await runProcess(process.execPath, [cliBundle, '--version'], { env });
    expect(version.stdout).to.equal(
      `trailproof-junit ${JSON.parse(readFileSync(new URL('../packages/action/package.json', import.meta.url), 'utf8')).version}\n`,
    );
    const unknown = await runProcess(process.execPath, [cliBundle, '--sever-url', 'x'], { env });
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.contain("Unknown option '--sever-url'").and.contain('Usage: trailproof-junit');
  });
});
