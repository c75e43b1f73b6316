// @database
/**
 * Reads that bind a list of fingerprints or ids run one statement per slice of it (issue 46,
 * item 3): each must answer as one statement over the whole list would, merged, ordered and cut
 * to its limit after merging. Lists of 5,000 (a report's artifacts) stand for the contract's maxima.
 */
import { expect } from 'chai';
import type { Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';

const many = 5_000;
const fingerprint = (i: number) => i.toString(16).padStart(64, '0');

describe('reads of long lists', function () {
  this.timeout(120_000);
  let store: Store;
  let cleanup: () => void | Promise<void>;
  let organizationId: number;
  let flowId: number;
  const fingerprints = Array.from({ length: many }, (_, i) => fingerprint(i));

  before(async () => {
    ({ store, cleanup } = await openTestStore());
    organizationId = Number((await store.ensureOrganization('acme', 0)).id);
    flowId = Number((await store.upsertFlow(organizationId, 'app', {}, 0)).flow.id);
    // Approvals of artifacts far down the list (past the first slice), one for each environment or for any.
    for (const [i, target] of [4_990, 10, 2_600, 4_999].entries()) {
      await store.insertApproval({
        flowId,
        targetArtifact: fingerprint(target),
        baseArtifact: fingerprint(target),
        artifactName: `a${target}`,
        description: '',
        environment: i === 1 ? 'staging' : null,
        srcCommitList: [`c${target}`],
        userData: null,
        state: 'PENDING',
        reviews: [],
        createdBy: null,
        at: 1_000 + i,
      });
    }
    const environmentId = (await store.upsertEnvironment(organizationId, { name: 'prod', type: 'server' }, 0)).id;
    await store.insertDeployments(
      [4_321, 7, 4_998].map((i, n) => ({
        organizationId,
        environmentId,
        envName: 'prod',
        snapshotIndex: n + 1,
        fingerprint: fingerprint(i),
        artifactName: `a${i}`,
        deployedAt: 2_000 + n,
        trailId: null,
        repoName: null,
      })),
    );
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('approvals of 5,000 fingerprints: every match, newest first', async () => {
    const found = await store.approvalsOfFingerprints(organizationId, fingerprints);
    expect(found.map((a) => a.releaseNumber)).to.deep.equal([4, 3, 2, 1]);
  });

  it('deployments of 5,000 fingerprints: the latest `limit` of all of them, newest first', async () => {
    const found = await store.deploymentsOfFingerprints(organizationId, fingerprints, 2);
    expect(found.map((d) => d.snapshotIndex)).to.deep.equal([3, 2]);
    const all = await store.deploymentsOfFingerprints(organizationId, fingerprints, 20);
    expect(all.map((d) => d.fingerprint)).to.deep.equal([fingerprint(4_998), fingerprint(7), fingerprint(4_321)]);
  });

  it('approvals of 5,000 artifacts for an environment: pages below a release number, newest first, each once', async () => {
    const firstPage = await store.approvalsOfArtifacts(flowId, fingerprints, 'prod', null, 2);
    expect(firstPage.map((a) => a.release_number)).to.deep.equal([4, 3]);
    const secondPage = await store.approvalsOfArtifacts(flowId, fingerprints, 'prod', 3, 2);
    // Number 2 is meant for staging only.
    expect(secondPage.map((a) => a.release_number)).to.deep.equal([1]);
  });

  it('artifacts of 5,000 commits: each commit with its own', async () => {
    const commits = Array.from({ length: many }, (_, i) => `c${i}`);
    const found = await store.artifactsOfCommits(organizationId, commits);
    expect(found.size).to.equal(many);
    expect([...found.values()].every((list) => list.length === 0)).to.equal(true);
  });
});
