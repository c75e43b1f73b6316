// @database
/**
 * The attest flow against a real server on loopback: the 10MB attachment limit, and what a
 * failure part-way leaves known (for the job summary).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGunzip } from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { type ApiRequestError, AttestError, attestJunitResults, buildAttachment, readInputs, type AttestConfig, type RunContext } from '@trailproof/action';

const suite = (name: string, log = '') => `<testsuite name="${name}">
  <testcase classname="${name}" name="works" time="0.1"><system-out>${log}</system-out></testcase>
  <testcase classname="${name}" name="breaks" time="0.2"><failure message="expected 1 but was 2">at ${name}:7</failure></testcase>
</testsuite>`;
/** Text that deflate cannot shrink much (base64 of random bytes: about 3/4 of its size). */
const noise = (bytes: number) =>
  randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);

describe('attest flow against a real server', function () {
  this.timeout(60_000);
  let server: TestServer;
  const dirs: string[] = [];
  before(async () => (server = await startTestServer()));
  after(async () => {
    await server.close();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  function workspace(files: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'trailproof-flow-'));
    dirs.push(dir);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const run: RunContext = {
      commit: { sha1: 'c'.repeat(40), branch: 'main' },
      repo: { name: 'acme/backend', url: 'https://github.com/acme/backend' },
      workspace: dir,
    };
    const config = (inputs: Record<string, string>): AttestConfig =>
      readInputs(
        (n) =>
          ({
            'server-url': server.url,
            'api-token': server.token,
            org: 'acme',
            flow: 'backend',
            'junit-paths': 'reports',
            ...inputs,
          })[n] ?? '',
        { defaultTrail: run.commit!.sha1, workspace: dir },
      );
    return { run, config };
  }
  const collect = () => {
    const log = { info: [] as string[], warning: [] as string[] };
    return { log, reporter: { info: (m: string) => log.info.push(m), warning: (m: string) => log.warning.push(m) } };
  };

  it('a report over 10MB: attests the results without the attachment, and warns', async () => {
    const { run, config } = workspace({ 'reports/TEST-big.xml': suite('BigTest', 'x'.repeat(10 * 1024 * 1024 + 1)) });
    const size = statSync(join(run.workspace, 'reports/TEST-big.xml')).size;
    const { log, reporter } = collect();
    const result = await attestJunitResults(config({ trail: 'big' }), run, reporter);
    expect(log.warning).to.deep.equal([
      `Attesting without the JUnit files: reports/TEST-big.xml is ${size.toLocaleString('en')} bytes, over the 10MB attachment limit`,
    ]);
    expect(result).to.include({ attested: true, begun: true, attachment: null, compliant: false });
    expect(result.totals).to.include({ total: 2, failed: 1, passed: 1 });

    const trail = await server.request('GET', '/api/v2/trails/acme/backend/big');
    const [attestation] = trail.body.attestations;
    expect(attestation.junit_results).to.have.length(1);
    expect(attestation.junit_results[0]).to.include({ name: 'BigTest', failures: 1, errors: 0, skipped: 0, total: 2, timestamp: null });
    expect(attestation.attachment ?? null).to.equal(null);
  });

  it('several reports: a .tar.gz of them below 10MB is attached', async () => {
    const { run, config } = workspace({ 'reports/a/TEST-a.xml': suite('A'), 'reports/b/TEST-b.xml': suite('B') });
    const { log, reporter } = collect();
    const result = await attestJunitResults(config({ trail: 'two' }), run, reporter);
    expect(log.warning).to.deep.equal([]);
    expect(result.attachment?.name).to.equal('junit-results.tar.gz');
    const trail = await server.request('GET', '/api/v2/trails/acme/backend/two');
    expect(trail.body.attestations[0].attachment).to.include({ name: 'junit-results.tar.gz', size: result.attachment!.size });
  });

  it('several reports each under 10MB whose .tar.gz passes 10MB: attested without it, with a warning', async () => {
    const { run, config } = workspace({ 'reports/TEST-a.xml': suite('A', noise(7 * 1024 * 1024)), 'reports/TEST-b.xml': suite('B', noise(7 * 1024 * 1024)) });
    const { log, reporter } = collect();
    const result = await attestJunitResults(config({ trail: 'noisy' }), run, reporter);
    expect(log.warning).to.have.length(1);
    expect(log.warning[0]).to.match(
      /^Attesting without the JUnit files: the 2 JUnit files \(14,68\d,\d{3} bytes\) pass 10MB even as a \.tar\.gz, over the 10MB attachment limit$/,
    );
    expect(result).to.include({ attested: true, attachment: null });
    expect((await server.request('GET', '/api/v2/trails/acme/backend/noisy')).body.attestations[0].junit_results).to.have.length(2);
  });

  it('buildAttachment packs several files under their workspace paths, with no owner or time: the same files give the same bytes', async () => {
    const { run } = workspace({ 'reports/a/TEST-a.xml': suite('A'), 'reports/TEST-b.xml': suite('B'), 'reports/empty.xml': '' });
    const files = ['reports/a/TEST-a.xml', 'reports/TEST-b.xml', 'reports/empty.xml'].map((f) => join(run.workspace, f));
    const first = await buildAttachment(files, run.workspace);
    expect(first.kind).to.equal('attached');
    const { bytes } = first as { bytes: Uint8Array };
    const entries: Array<{ name: string; mode?: number; mtime?: number; uid?: number; content: string }> = [];
    for await (const entry of Readable.from([bytes]).pipe(createGunzip()).pipe(tar.extract())) {
      const { name, mode, mtime, uid } = entry.header;
      entries.push({ name, mode, mtime: mtime?.getTime(), uid, content: (await buffer(entry)).toString() });
    }
    expect(entries).to.deep.equal([
      { name: 'reports/a/TEST-a.xml', mode: statSync(files[0]!).mode & 0o777, mtime: 0, uid: 0, content: suite('A') },
      { name: 'reports/TEST-b.xml', mode: statSync(files[1]!).mode & 0o777, mtime: 0, uid: 0, content: suite('B') },
      { name: 'reports/empty.xml', mode: statSync(files[2]!).mode & 0o777, mtime: 0, uid: 0, content: '' },
    ]);
    expect((await buildAttachment(files, run.workspace)) as { bytes: Uint8Array }).to.deep.include({ bytes });
  });

  // Sparse files: stat says a terabyte, reading them would take hours (or fail): only stat can answer at once.
  it('buildAttachment refuses a single file over the limit without reading it', async () => {
    const { run } = workspace({ 'huge.xml': '' });
    const file = join(run.workspace, 'huge.xml');
    truncateSync(file, 2 ** 40);
    expect(await buildAttachment([file], run.workspace)).to.deep.equal({
      kind: 'too-large',
      reason: 'huge.xml is 1,099,511,627,776 bytes, over the 10MB attachment limit',
    });
  });

  it('buildAttachment refuses, without reading them, files that no .tar.gz could bring under the limit', async () => {
    const { run } = workspace({ 'a.xml': '', 'b.xml': '' });
    const files = ['a.xml', 'b.xml'].map((f) => join(run.workspace, f));
    files.forEach((f) => truncateSync(f, 2 ** 34));
    // Deflate shrinks at most ~1032:1: 32GiB cannot become 10MB.
    expect(await buildAttachment(files, run.workspace)).to.deep.equal({
      kind: 'too-large',
      reason: 'the 2 JUnit files come to 34,359,738,368 bytes, which no .tar.gz can bring under the 10MB attachment limit',
    });
  });

  it('an HTTP error: the error carries the totals, suites and failures already read', async () => {
    const { run, config } = workspace({ 'reports/TEST-a.xml': suite('A') });
    const error = await attestJunitResults({ ...config({ trail: 'denied' }), apiToken: 'tp_not_a_token' }, run, collect().reporter).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AttestError);
    const { result, message } = error as AttestError;
    expect(message).to.match(/PUT \/trails\/acme\/backend answered 401/);
    // The server's id for the request, which names it in the server's log.
    const requestId = /\[request ([0-9a-f-]{36})\]/.exec(message)?.[1];
    expect(requestId, message).to.be.a('string');
    expect(((error as AttestError).cause as ApiRequestError).requestId).to.equal(requestId);
    expect(result).to.include({ begun: false, attested: false, compliant: false });
    expect(result.totals).to.include({ total: 2, failed: 1 });
    expect(result.suites.map((s) => s.name)).to.deep.equal(['A']);
    expect(result.failures.map((c) => c.message)).to.deep.equal(['expected 1 but was 2']);
  });

  it('corrupt XML: the error names file and line; no totals, the files read before it listed', async () => {
    const { run, config } = workspace({ 'reports/TEST-a.xml': suite('A'), 'reports/TEST-b.xml': '<testsuite>\n<testcase name="x">' });
    const error = await attestJunitResults(config({ trail: 'corrupt' }), run, collect().reporter).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AttestError);
    expect((error as Error).message).to.match(/TEST-b\.xml:2:\d+: corrupt XML/);
    expect((error as AttestError).result).to.deep.include({ totals: null, files: [join(run.workspace, 'reports/TEST-a.xml')], begun: false });
  });
});
