import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { fromGitHub, gitHubContext } from '@trailproof/action';
import { graceRepository } from '../../../test/support/grace-repository.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const context = (eventName: string, payload: Record<string, unknown>, ref: string, sha: string) => ({
  eventName,
  payload,
  ref,
  sha,
  serverUrl: 'https://github.com',
  runId: 99,
  repo: { owner: 'acme', repo: 'backend' },
});

/** Grace's repository and its depth-1 clone (see graceRepository) in a folder of their own. */
function repositories() {
  const root = mkdtempSync(join(tmpdir(), 'trailproof-git-'));
  const { origin, clone, parent, head } = graceRepository(root, join(root, 'shallow'));
  return { origin, shallow: clone, parent, head, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

describe('git context from GitHub events', () => {
  let repos: ReturnType<typeof repositories>;
  before(() => (repos = repositories()));
  after(() => repos.cleanup());

  it('push: the head commit with message, author, username, time and branch; the parent from `before` (one commit pushed)', () => {
    const push = fixture('push.json');
    const run = fromGitHub(context('push', push, 'refs/heads/main', push.after), tmpdir());
    expect(run.commit).to.deep.equal({
      sha1: '2f4c9a1e5b7d3c8e0f1a2b3c4d5e6f7a8b9c0d1e',
      message: 'Fix rounding in invoice totals\n\nRounds half to even, as the auditors asked.',
      author: 'Ada Lovelace <ada@acme.example>',
      author_username: 'ada',
      timestamp: Date.parse('2026-11-20T14:03:11+01:00') / 1000,
      branch: 'main',
      url: 'https://github.com/acme/backend/commit/2f4c9a1e5b7d3c8e0f1a2b3c4d5e6f7a8b9c0d1e',
      parents: ['1111111111111111111111111111111111111111'],
    });
    expect(run.repo).to.deep.equal({
      name: 'acme/backend',
      url: 'https://github.com/acme/backend',
      id: '734512',
      description: 'Invoicing backend',
      provider: 'github',
    });
    expect(run.originUrl).to.equal('https://github.com/acme/backend/actions/runs/99');
  });

  it('reads the context from the GITHUB_* variables and the payload file, as the runner gives them', () => {
    const env = {
      GITHUB_SHA: 'abc',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_SERVER_URL: 'https://ghe.example.com/',
      GITHUB_RUN_ID: '4242',
      GITHUB_REPOSITORY: 'acme/backend',
      GITHUB_EVENT_PATH: new URL('./fixtures/push.json', import.meta.url).pathname,
    };
    const context = gitHubContext(env);
    expect(context).to.deep.include({
      sha: 'abc',
      ref: 'refs/heads/main',
      eventName: 'push',
      serverUrl: 'https://ghe.example.com',
      runId: 4242,
      repo: { owner: 'acme', repo: 'backend' },
    });
    expect(context.payload.head_commit.author.username).to.equal('ada');
    expect(gitHubContext({}).payload).to.deep.equal({});
    expect(() => gitHubContext({ GITHUB_EVENT_PATH: '/no/such/event.json' })).to.throw(/GITHUB_EVENT_PATH=\/no\/such\/event.json/);
  });

  it("workflow_run (attesting a fork's pull request): the finished run's head commit and branch, not the base repository's", () => {
    const headSha = '9'.repeat(40);
    const payload = {
      action: 'completed',
      repository: fixture('push.json').repository,
      workflow_run: {
        id: 77,
        event: 'pull_request',
        head_sha: headSha,
        head_branch: 'fix-typo',
        head_commit: { id: headSha, message: 'Fix a typo', timestamp: '2026-11-22T08:00:00Z', author: { name: 'Eve Fork', email: 'eve@fork.example' } },
      },
    };
    const run = fromGitHub(context('workflow_run', payload, 'refs/heads/main', 'b'.repeat(40)), tmpdir());
    expect(run.commit).to.deep.equal({
      sha1: headSha,
      branch: 'fix-typo',
      message: 'Fix a typo',
      author: 'Eve Fork <eve@fork.example>',
      timestamp: Date.parse('2026-11-22T08:00:00Z') / 1000,
      url: `https://github.com/acme/backend/commit/${headSha}`,
    });
  });

  const push = fixture('push.json');
  for (const [what, change] of [
    ['several commits pushed', { commits: [push.commits[0], { ...push.commits[0], id: 'f'.repeat(40) }] }],
    ['a new branch (before is all zeros)', { before: '0'.repeat(40), created: true }],
    ['a forced push (before need not be the parent)', { forced: true }],
    ['a head commit that is not the one commit listed', { commits: [{ ...push.commits[0], id: 'e'.repeat(40) }] }],
  ] as const) {
    it(`push without git history: no parents for ${what}`, () => {
      const run = fromGitHub(context('push', { ...push, ...change }, 'refs/heads/main', push.after), tmpdir());
      expect(run.commit).to.not.have.property('parents');
      expect(run.commit).to.include({ sha1: push.after, author_username: 'ada' });
    });
  }

  it('push with the full history checked out: the parents come from git, not from the payload', () => {
    const payload = {
      ...push,
      after: repos.head,
      before: 'a'.repeat(40),
      commits: [{ ...push.commits[0], id: repos.head }],
      head_commit: { ...push.head_commit, id: repos.head },
    };
    const run = fromGitHub(context('push', payload, 'refs/heads/main', repos.head), repos.origin);
    expect(run.commit!.parents).to.deep.equal([repos.parent]);
  });

  it('push with a depth-1 checkout: git does not know the parents, the payload does', () => {
    const payload = {
      ...push,
      after: repos.head,
      before: repos.parent,
      commits: [{ ...push.commits[0], id: repos.head }],
      head_commit: { ...push.head_commit, id: repos.head },
    };
    const run = fromGitHub(context('push', payload, 'refs/heads/main', repos.head), repos.shallow);
    expect(run.commit!.parents).to.deep.equal([repos.parent]);
  });

  it("pull_request: the PR head's SHA and branch, not the merge commit; no author from the PR opener", () => {
    const pr = fixture('pull_request.json');
    const run = fromGitHub(context('pull_request', pr, 'refs/pull/87/merge', 'abababababababababababababababababababab'), tmpdir());
    expect(run.commit).to.deep.equal({
      sha1: '8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d',
      branch: 'feature/vat-reverse-charge',
      url: 'https://github.com/acme/backend/commit/8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d',
    });
  });

  it('pull_request with the head checked out at depth 1: message, author and time from git; parents omitted, not guessed', () => {
    const pr = fixture('pull_request.json');
    const payload = { ...pr, after: repos.head, pull_request: { ...pr.pull_request, head: { ...pr.pull_request.head, sha: repos.head } } };
    const run = fromGitHub(context('pull_request', payload, 'refs/pull/87/merge', 'abababababababababababababababababababab'), repos.shallow);
    expect(run.commit).to.deep.equal({
      sha1: repos.head,
      branch: 'feature/vat-reverse-charge',
      url: `https://github.com/acme/backend/commit/${repos.head}`,
      message: 'Add VAT reverse charge\n\nFor B2B invoices.',
      author: 'Grace Hopper <grace@acme.example>',
      timestamp: Date.parse('2026-11-21T16:30:00Z') / 1000,
    });
  });

  it('pull_request with the full history: the parents from git', () => {
    const pr = fixture('pull_request.json');
    const payload = { ...pr, pull_request: { ...pr.pull_request, head: { ...pr.pull_request.head, sha: repos.head } } };
    const run = fromGitHub(context('pull_request', payload, 'refs/pull/87/merge', 'abababababababababababababababababababab'), repos.origin);
    expect(run.commit!.parents).to.deep.equal([repos.parent]);
  });
});
