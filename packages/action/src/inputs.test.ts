import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { defaultJunitPaths, InputError, readInputs } from '@trailproof/action';

/** A workspace with a template, a directory and a file just over the 10MB limit (sparse). */
const workspace = mkdtempSync(join(tmpdir(), 'trailproof-inputs-'));
writeFileSync(join(workspace, 'tpl.yml'), 'version: 1\n');
mkdirSync(join(workspace, 'templates'));
writeFileSync(join(workspace, 'huge.yml'), '');
truncateSync(join(workspace, 'huge.yml'), 10 * 1024 * 1024 + 1);

const base: Record<string, string> = { 'server-url': 'https://tp.example.com/', 'api-token': 'tp_x', org: 'acme', flow: 'backend' };
const read = (extra: Record<string, string> = {}, sha: string | undefined = 'abc123') =>
  readInputs((n) => ({ ...base, ...extra })[n] ?? '', { defaultTrail: sha, workspace });

describe('action inputs', () => {
  after(() => rmSync(workspace, { recursive: true, force: true }));

  it('reads defaults into one typed object', () => {
    expect(read()).to.deep.equal({
      serverUrl: 'https://tp.example.com',
      apiToken: 'tp_x',
      org: 'acme',
      flow: 'backend',
      trail: 'abc123',
      junitPaths: defaultJunitPaths,
      attestationName: 'junit',
      failOnFailure: true,
      requireTests: true,
      uploadResults: true,
      annotations: 10,
      reruns: 'separate',
      jobSummary: 'all',
      onMissingToken: 'fail',
    });
  });

  it('annotations, reruns, job-summary and on-missing-token: read, and a bad value named', () => {
    expect(read({ annotations: '0', reruns: 'merge', 'job-summary': 'Failures', 'on-missing-token': 'warn' })).to.include({
      annotations: 0,
      reruns: 'merge',
      jobSummary: 'failures',
      onMissingToken: 'warn',
    });
    expect(read({ annotations: '50', 'job-summary': 'off' })).to.include({ annotations: 50, jobSummary: 'off' });
    for (const [name, value, message] of [
      ['annotations', '51', "Input 'annotations' must be a whole number from 0 to 50 (GitHub shows at most 50 per job), not '51'"],
      ['annotations', '-1', "Input 'annotations' must be a whole number from 0 to 50 (GitHub shows at most 50 per job), not '-1'"],
      ['reruns', 'dedupe', "Input 'reruns' must be separate or merge, not 'dedupe'"],
      ['job-summary', 'none', "Input 'job-summary' must be all or failures or off, not 'none'"],
      ['on-missing-token', 'skip', "Input 'on-missing-token' must be fail or warn, not 'skip'"],
    ])
      expect(() => read({ [name!]: value! }), name).to.throw(InputError, message);
  });

  it('an empty api-token fails by default; with on-missing-token warn it is allowed, and so are a missing server-url, org and flow', () => {
    expect(() => read({ 'api-token': '' })).to.throw(InputError, "Input 'api-token' is required");
    const fork = readInputs((n) => ({ 'on-missing-token': 'warn' })[n] ?? '', { defaultTrail: undefined, workspace });
    expect(fork).to.include({ apiToken: '', onMissingToken: 'warn' });
    expect(read({ 'api-token': ' ', 'on-missing-token': 'warn' })).to.include({ apiToken: '', org: 'acme', flow: 'backend' });
  });

  it('reads every optional input', () => {
    const config = read({
      trail: 'build-7',
      'junit-paths': 'reports/**/*.xml\n\n!reports/flaky/**\n',
      'attestation-name': 'unit,fast',
      'template-file': 'tpl.yml',
      'artifact-fingerprint': 'a'.repeat(64),
      description: 'nightly',
      'fail-on-failure': 'false',
      'require-tests': 'no',
      'upload-results': 'FALSE',
    });
    expect(config).to.include({
      trail: 'build-7',
      attestationName: 'unit,fast',
      templateFile: 'tpl.yml',
      description: 'nightly',
      failOnFailure: false,
      requireTests: false,
      uploadResults: false,
    });
    expect(config.junitPaths).to.deep.equal(['reports/**/*.xml', '!reports/flaky/**']);
  });

  it('junit-paths: `#` lines are comments, blank lines are ignored; only comments means the default', () => {
    const config = read({ 'junit-paths': '# unit tests\n  build/test-results\n\n  # not the flaky ones\n!build/test-results/flaky\n#!nothing' });
    expect(config.junitPaths).to.deep.equal(['build/test-results', '!build/test-results/flaky']);
    expect(read({ 'junit-paths': '# nothing yet\n\n' }).junitPaths).to.deep.equal(defaultJunitPaths);
  });

  it('template-file: accepts a file in the workspace, as given', () => {
    expect(read({ 'template-file': join(workspace, 'tpl.yml') }).templateFile).to.equal(join(workspace, 'tpl.yml'));
  });

  for (const [input, value, pattern] of [
    ['server-url', '', /Input 'server-url' is required/],
    ['server-url', 'ftp://x', /Input 'server-url' must be an http\(s\) URL/],
    ['server-url', 'not a url', /Input 'server-url' must be an http\(s\) URL/],
    ['api-token', '', /Input 'api-token' is required/],
    ['org', 'ac me', /Input 'org'/],
    ['flow', '../etc', /Input 'flow'/],
    ['trail', 'a/b', /Input 'trail'/],
    ['attestation-name', 'bad name', /Input 'attestation-name'/],
    ['artifact-fingerprint', 'abc', /Input 'artifact-fingerprint' must be a SHA-256/],
    ['fail-on-failure', 'maybe', /Input 'fail-on-failure' must be true or false, not 'maybe'/],
    ['require-tests', '2', /Input 'require-tests'/],
    ['upload-results', 'yes please', /Input 'upload-results'/],
    ['template-file', 'missing.yml', /Input 'template-file' names no file: 'missing.yml'/],
    ['template-file', 'templates', /Input 'template-file' must name a file; 'templates' .* is not one/],
    ['template-file', 'huge.yml', /Input 'template-file' 'huge.yml' is 10485761 bytes, over the 10MB/],
  ] as const) {
    it(`names '${input}' when it is '${value}'`, () => {
      expect(() => read({ [input]: value })).to.throw(InputError, pattern);
    });
  }

  it('needs a trail when the commit is unknown', () => {
    expect(() => readInputs((n) => base[n] ?? '', { defaultTrail: undefined, workspace })).to.throw(InputError, /Input 'trail' is required/);
  });
});
