// @database
/**
 * Four eyes (issue 51, point 6): a policy's `trailproof.four-eyes` rule, outside Kosli's
 * `artifacts`, requires the artifact's commit to be in a pull request approved by someone other
 * than each of its authors. Judged by assert artifact and by snapshots, recorded in verdicts with
 * the commits and pull requests read, and re-derived by verify-package, which names a verdict
 * whose pull requests are not those of their record.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { opener, outcome, rewritePackage } from '../audit/package-fixture.ts';
import { verifyPackage } from '../audit/verify-package.ts';
import { parsePolicy, PolicyError } from '../domain/policy.ts';
import { evaluatePolicy } from '../domain/policy-evaluate.ts';
import { factsOfVerdict } from '../domain/verdict.ts';
import { canonicalJson } from '../store/queries/chain.ts';
import { signInTo, textOf } from '../../../../test/support/console-story.ts';

const fp = (name: string) => createHash('sha256').update(name).digest('hex');
const commit = (c: string) => c.repeat(40);
const kosliHeader = '_schema: https://kosli.com/schemas/policy/environment/v1\n';
const fourEyesPolicy = `${kosliHeader}artifacts:\n  provenance:\n    required: true\ntrailproof:\n  four-eyes:\n    required: true\n    exceptions:\n      - if: \${{ flow.name == "docs" }}\n`;

/** The trails of the story: each reports one artifact on its own commit, with the pull request (if any) that has it. */
const stories = {
  'other-approved': { commit: commit('a'), pr: { author: 'alice', approvers: [{ username: 'Bob', state: 'APPROVED' }], commitAuthor: 'alice' } },
  'author-approved': { commit: commit('b'), pr: { author: 'alice', approvers: [{ username: 'alice', state: 'APPROVED' }], commitAuthor: 'alice' } },
  // Bob approved Alice's pull request, but a commit in it is Bob's: nobody else approved that one.
  'approver-authored': { commit: commit('c'), pr: { author: 'alice', approvers: ['bob'], commitAuthor: 'bob' } },
  // Carol's review asked for changes: it is no approval.
  'changes-requested': { commit: commit('d'), pr: { author: 'alice', approvers: [{ username: 'carol', state: 'CHANGES_REQUESTED' }], commitAuthor: 'alice' } },
  'no-pr': { commit: commit('e'), pr: undefined },
} as const;
type Story = keyof typeof stories;

describe('four eyes: a commit in a pull request approved by someone other than its authors', function () {
  this.timeout(120_000);
  let server: TestServer;
  const call = async (method: string, path: string, options: Parameters<TestServer['request']>[2] = {}) => {
    const res = await server.request(method, `/api/v2${path}`, options);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    return res.body;
  };
  const assert = (story: Story) => call('GET', `/asserts/acme/fingerprint/${fp(story)}?policy_name=four-eyes`);
  const fourEyesOf = (answer: any) => answer.policy_evaluations[0].rule_evaluations.find((r: any) => r.rule.type === 'four-eyes');

  before(async () => {
    server = await startTestServer();
    for (const [trail, story] of Object.entries(stories)) {
      await call('PUT', '/trails/acme/app', { form: { data_json: JSON.stringify({ name: trail }) } });
      await call('POST', '/artifacts/acme/app', {
        json: {
          fingerprint: fp(trail),
          filename: trail,
          git_commit: story.commit,
          build_url: 'https://ci.example.com/1',
          commit_url: 'https://git.example.com/c',
          template_reference_name: 'image',
          trail_name: trail,
        },
      });
      if (!story.pr) continue;
      const pr = {
        merge_commit: story.commit,
        url: 'https://github.com/acme/app/pull/1',
        state: 'MERGED',
        author: story.pr.author,
        approvers: story.pr.approvers,
        commits: [
          {
            sha1: story.commit,
            message: 'change',
            author: `${story.pr.commitAuthor} <x@example.com>`,
            author_username: story.pr.commitAuthor,
            timestamp: 1,
            branch: 'b',
          },
        ],
      };
      const data = { attestation_name: 'pr', git_provider: 'github', pull_requests: [pr], artifact_fingerprint: fp(trail) };
      await call('POST', `/attestations/acme/app/trail/${trail}/pull_request`, { form: { data_json: JSON.stringify(data) } });
    }
    await call('PUT', '/policies/acme', {
      form: { payload: JSON.stringify({ name: 'four-eyes', type: 'env' }), policy_file: { content: fourEyesPolicy, name: 'four-eyes.yml' } },
    });
  });
  after(() => server?.close());

  it("is a Trailproof key beside Kosli's: parsed with its exceptions, absent from Kosli's files, and an unknown key under it named", () => {
    expect(parsePolicy(fourEyesPolicy).trailproof?.['four-eyes']).to.include({ required: true });
    const kosli = parsePolicy(`${kosliHeader}artifacts:\n  provenance:\n    required: true\n`);
    expect(kosli).to.not.have.property('trailproof');
    expect(evaluatePolicy(kosli, { artifact: { name: 'a', fingerprint: fp('a') }, trails: [] }).rule_evaluations.map((r) => r.rule.type)).to.deep.equal([
      'provenance',
      'trail-compliance',
    ]);
    const error = (() => {
      try {
        parsePolicy(`${kosliHeader}trailproof:\n  two-eyes: {}\n`);
      } catch (e) {
        return e;
      }
    })() as PolicyError;
    expect(error).to.be.instanceOf(PolicyError);
    expect([error.field, error.line]).to.deep.equal(['trailproof.two-eyes', 3]);
  });

  it('assert artifact: satisfied when someone else approved; author-approved, approver-authored, changes requested and no pull request fail, each with its reason', async () => {
    const other = await assert('other-approved');
    expect(other.compliant).to.equal(true);
    expect(fourEyesOf(other)).to.deep.include({ ignored: false, satisfied: true });
    expect(fourEyesOf(other).resolutions).to.deep.equal([
      { type: 'rule_satisfied', context: { flow_name: 'app', trail_name: 'other-approved', commit: commit('a') } },
    ]);
    const expected: Array<[Story, string]> = [
      ['author-approved', 'self_approved'],
      ['approver-authored', 'self_approved'],
      ['changes-requested', 'self_approved'],
      ['no-pr', 'missing_pull_request'],
    ];
    for (const [story, reason] of expected) {
      const answer = await assert(story);
      expect(answer.compliant, story).to.equal(false);
      expect(
        fourEyesOf(answer).resolutions.map((r: any) => r.type),
        story,
      ).to.deep.equal([reason]);
      expect(answer.log_index, story).to.be.a('number');
    }
  });

  it("the console's verdict page says why four eyes failed, with the commit and the pull request attestation it read", async () => {
    await assert('author-approved');
    const org = await server.store.findOrganization('acme');
    const [row] = (await server.store.listVerdicts(Number(org!.id), { fingerprint: fp('author-approved'), offset: 0, limit: 1 })).items;
    const cookie = await signInTo(server, server.readToken);
    const page = await fetch(`${server.url}/ui/acme/verdicts/${row!.id}`, { headers: { cookie } });
    expect(page.status).to.equal(200);
    const text = textOf(await page.text());
    expect(text)
      .to.contain('four eyes required: the commit is in a pull request approved by someone other than each of its authors ✗ FAILED')
      .and.contain(`no pull request with the commit is approved by someone other than its authors in app/author-approved`)
      .and.contain(`commit ${commit('b')}`)
      .and.match(/pull_request 'pr' compliant \( ?log #\d+ ?\)/);
  });

  it('a snapshot judged by an environment with the policy: the other-approved artifact passes, the author-approved one does not', async () => {
    await call('PUT', '/environments/acme', { json: { name: 'prod', type: 'K8S' } });
    const pods = (['other-approved', 'author-approved'] as const).map((s) => ({
      podName: s,
      namespace: 'ns',
      digests: { [s]: fp(s) },
      creationTimestamp: 1_764_000_000,
    }));
    await call('PUT', '/environments/acme/prod/report/K8S', { json: { artifacts: pods } });
    await call('POST', '/environments/acme/prod/policies', { json: { policy_names: ['four-eyes'] } });
    const snapshot = await call('GET', '/snapshots/acme/prod/-1');
    const compliance = Object.fromEntries(snapshot.artifacts.map((a: any) => [a.name, a.compliant]));
    expect([snapshot.compliant, compliance]).to.deep.equal([false, { 'other-approved': true, 'author-approved': false }]);
  });

  it('verify-package re-derives every four-eyes verdict, and names one whose pull requests were forged to pass', async () => {
    const honest = await assert('author-approved');
    const exported = async () => {
      await server.store.makeCheckpoints!();
      const bytes = Buffer.from((await server.request('GET', '/api/v2/log/acme/export', { token: server.readToken })).bytes);
      const key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key as string;
      return { bytes, key };
    };
    const { bytes, key } = await exported();
    expect((await verifyPackage(opener(bytes), key)).verdicts).to.be.at.least(5);
    let verdict: any;
    await rewritePackage(bytes, (name, content) => {
      if (name === `records/${honest.log_index}/verdict.json`) verdict = JSON.parse(content.toString('utf8')).verdict;
      return content;
    });
    expect(verdict.trails[0].commit).to.equal(commit('b'));
    expect(verdict.trails[0].attestations[0].pull_requests[0]).to.deep.include({ author: 'alice', approvers: ['alice'] });
    // A forger who changes the approver and judges again, so that the result follows from the forged facts.
    verdict.trails[0].attestations[0].pull_requests[0].approvers = ['mallory'];
    const [evaluation] = verdict.policy_evaluations;
    const judged = evaluatePolicy(parsePolicy(fourEyesPolicy), factsOfVerdict(verdict));
    const forged = { ...verdict, compliant: judged.compliant, policy_evaluations: [{ ...evaluation, ...judged }] };
    expect(forged.compliant).to.equal(true);
    const org = await server.store.findOrganization('acme');
    const text = canonicalJson(forged);
    const index = await server.store.transaction((tx) =>
      tx.recordVerdict({
        organizationId: Number(org!.id),
        fingerprint: fp('author-approved'),
        verdict: text,
        compliant: true,
        createdBy: null,
        at: 1_764_000_000,
      }),
    );
    const again = await exported();
    expect(await outcome(again.bytes, again.key)).to.equal(`verdict-mismatch records/${index}/row.json`);
    const error = await verifyPackage(opener(again.bytes), again.key).catch((e) => e);
    expect(error.message).to.match(
      new RegExp(`verdict ${index} does not follow from its evidence: the pull requests of attestation 'pr' in trail 'author-approved'`),
    );
  });
});
