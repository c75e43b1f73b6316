// @database
/**
 * Lists that carry what clients sent (issue 46, item 8, beyond a trail's attestations): an artifact
 * may carry 100 external URLs of 2 KB, 100 annotations and a 16 KB commit message, about 240 KB, and
 * list artifacts, get artifact by commit and search answer up to 100 of them: 24 MB in one answer; a
 * trail may carry 1 MB of user_data, and list trails answers up to 100: 100 MB.
 * Each is written an artifact per turn of the event loop (the pages keep their numbers: `kosli list
 * artifacts` pages by number), so health answers meanwhile. The server is a child process and the
 * answer is read as bytes while probing: parsing 24 MB of JSON on the test's own event loop would
 * delay its probes and be counted against the server.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { call } from '../support/processes.ts';
import { startChildServer, type ChildServer } from './child-server.ts';
import { untilReady, whileProbingHealth } from './health-probe.ts';

const count = 100;
/** Trails of 1 MB of user_data each: a page of 50 (50 MB), to keep the setup short. */
const trails = 50;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const commit = createHash('sha1').update('big artifacts').digest('hex');

/** An artifact at the contract's bounds: 100 URLs of 2,000 characters, 100 annotations of 256, a 16,000-character message. */
function bigArtifact(i: number) {
  return {
    fingerprint: sha256(`big:${i}`),
    filename: `big-${i}.tgz`,
    git_commit: commit,
    git_commit_info: { sha1: commit, message: 'm'.repeat(16_000), author: 'Ada', timestamp: 1_763_800_000, branch: 'main' },
    build_url: 'https://ci.example.com/1',
    commit_url: `https://github.com/acme/big/commit/${commit}`,
    repo_url: 'https://github.com/acme/big',
    template_reference_name: 'big',
    trail_name: `t${i % 10}`,
    external_urls: Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`link${k}`, `https://example.com/${'u'.repeat(1_980)}${k}`])),
    annotations: Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`key${k}`, 'v'.repeat(256)])),
  };
}

describe('hostile clients: pages of big artifacts and trails', function () {
  this.timeout(240_000);
  let server: ChildServer;
  before(async () => {
    server = await startChildServer();
    await untilReady(server);
    for (let i = 0; i < count; i++) {
      const res = await call(server.url, server.token, 'POST', '/api/v2/artifacts/acme/big', { json: bigArtifact(i) });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(201);
    }
    for (let i = 0; i < trails; i++) {
      const form = new FormData();
      form.append('data_json', JSON.stringify({ name: `fat-${i}`, user_data: { filler: 'x'.repeat(1_000_000), i } }));
      const res = await call(server.url, server.token, 'PUT', '/api/v2/trails/acme/fat', { form });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(201);
    }
  });
  after(() => server?.close());

  /** The answer's bytes, read without parsing them while the probes run. */
  const fetchBytes = async (path: string) => {
    const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${server.token}` } });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  for (const [what, path] of [
    ['list artifacts, 100 a page', '/api/v2/artifacts/acme?flow_name=big&page=1&per_page=100'],
    ['get artifact by commit', `/api/v2/artifacts/acme/big/commit_sha/${commit}`],
    ['search by commit', `/api/v2/search/acme/sha/${commit}`],
    ['list trails of a flow, 50 of 1 MB', '/api/v2/trails/acme/fat?per_page=100'],
    ['list trails of the organisation, by flow', '/api/v2/trails/acme?flow=fat&per_page=100'],
  ] as const) {
    it(`${what}: while health answers within 1 s`, async () => {
      const { result, slowestMs } = await whileProbingHealth(server, () => fetchBytes(path));
      console.log(`      ${what}: ${(result.bytes.length / 1e6).toFixed(1)} MB, the slowest health probe took ${slowestMs.toFixed(0)} ms`);
      expect(result.status).to.equal(200);
      expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
      // Every artifact answered whole, with what it was reported with.
      const json = JSON.parse(result.bytes.toString('utf8'));
      if (path.startsWith('/api/v2/trails/')) {
        expect(json.data.map((t: { user_data: { i: number } }) => t.user_data.i).sort((a: number, b: number) => a - b)).to.deep.equal(
          Array.from({ length: trails }, (_, i) => i),
        );
        return;
      }
      const artifacts = Array.isArray(json) ? json : json.artifacts;
      expect(artifacts).to.have.length(count);
      if (!path.includes('/search/')) for (const a of artifacts) expect(Object.keys(a.external_urls)).to.have.length(100);
    });
  }

  it('a client that goes away in the middle of a streamed page ends nothing: the server answers on', async () => {
    for (let i = 0; i < 5; i++) {
      const aborted = new AbortController();
      const response = await fetch(`${server.url}/api/v2/trails/acme/fat?per_page=100`, {
        headers: { authorization: `Bearer ${server.token}` },
        signal: aborted.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      aborted.abort();
      await reader.read().catch(() => undefined);
    }
    const health = await fetch(`${server.url}/api/v2/health`);
    expect(health.status).to.equal(200);
    expect(server.child.exitCode).to.equal(null);
  });
});
