import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect } from 'chai';
import { fromGitHub } from '@trailproof/action';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const context = (eventName: string, payload: Record<string, unknown>, ref: string, sha: string) => ({
  eventName, payload, ref, sha, serverUrl: 'https://github.com', runId: 99, repo: { owner: 'acme', repo: 'backend' },
});

describe('git context from GitHub events', () => {
  it('push: the head commit with message, author, username, time and branch', () => {
    const push = fixture('push.json');
    const run = fromGitHub(context('push', push, 'refs/heads/main', push.after), tmpdir());
    expect(run.commit).to.deep.equal({
      sha1: '2f4c9a1e5b7d3c8e0f1a2b3c4d5e6f7a8b9c0d1e', message: 'Fix rounding in invoice totals\n\nRounds half to even, as the auditors asked.',
      author: 'Ada Lovelace <ada@acme.example>', author_username: 'ada', timestamp: Date.parse('2026-11-20T14:03:11+01:00') / 1000, branch: 'main',
      url: 'https://github.com/acme/backend/commit/2f4c9a1e5b7d3c8e0f1a2b3c4d5e6f7a8b9c0d1e',
    });
    expect(run.repo).to.deep.equal({ name: 'acme/backend', url: 'https://github.com/acme/backend', id: '734512', description: 'Invoicing backend', provider: 'github' });
    expect(run.originUrl).to.equal('https://github.com/acme/backend/actions/runs/99');
  });

  it("pull_request: the PR head's SHA and branch, not the merge commit", () => {
    const pr = fixture('pull_request.json');
    const run = fromGitHub(context('pull_request', pr, 'refs/pull/87/merge', 'abababababababababababababababababababab'), tmpdir());
    expect(run.commit).to.deep.include({ sha1: '8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d', branch: 'feature/vat-reverse-charge', author_username: 'grace' });
    expect(run.commit!.url).to.equal('https://github.com/acme/backend/commit/8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d');
  });
});
