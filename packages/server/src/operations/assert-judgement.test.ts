// @database
/**
 * `assertArtifact` asks its `record` for a verdict's leaf once per store while the judgement is
 * remembered: a verdict recorded in a log keeps its leaf there, and another store's log is asked
 * on its own.
 */
import { expect } from 'chai';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '../store/types.ts';
import { assertArtifact, type RecordVerdict } from './assert-judgement.ts';

const fingerprint = 'f'.repeat(64);
const policy =
  '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  provenance:\n    required: true\n  attestations:\n    - name: scan\n      type: generic\n';

/** An artifact with one compliant attestation in a trail, and the policy `gate`; the organisation's id. */
async function story(store: Store, extraTrails: number): Promise<number> {
  const org = Number((await store.ensureOrganization('acme', 1)).id);
  const flow = await store.ensureFlow(org, 'shop', 1);
  // Trails begun first shift this log's leaves, not the artifact's or attestation's ids.
  for (let i = 0; i < extraTrails; i++) await store.upsertTrail(flow.id, { name: `early-${i}` }, null, 1, null);
  await store.upsertTrail(flow.id, { name: 't' }, null, 1, null);
  const unreported = { gitCommit: null, gitCommitInfo: null, repoInfo: null, repoUrl: null, externalUrls: null, annotations: null, createdBy: null };
  await store.transaction((tx) =>
    tx.appendArtifact({
      ...unreported,
      organizationId: org,
      flow: 'shop',
      trail: 't',
      fingerprint,
      filename: 'shop',
      templateReferenceName: 'shop',
      buildUrl: 'https://ci',
      commitUrl: 'https://git',
      at: 2,
    }),
  );
  await store.appendAttestation({
    organizationId: org,
    flow: 'shop',
    trail: 't',
    name: 'scan',
    type: 'generic',
    dataJson: JSON.stringify({ artifact_fingerprint: fingerprint }),
    artifactFingerprint: fingerprint,
    attachment: null,
    compliant: true,
    createdBy: null,
    at: 3,
  });
  await store.putPolicyVersion({ organizationId: org, name: 'gate', description: '', type: 'env', comment: '', yaml: policy, createdBy: null, at: 4 });
  return org;
}

describe('assert artifact: a recorded verdict keeps its leaf per store', function () {
  this.timeout(60_000);
  const opened: Array<Awaited<ReturnType<typeof openTestStore>>> = [];
  after(async () => {
    for (const o of opened) {
      await o.store.close();
      await o.cleanup();
    }
  });

  it('records once, answers the same leaf without asking again, and asks another store its own', async () => {
    const stores: Array<{ store: Store; org: number }> = [];
    for (const extra of [0, 1]) {
      const o = await openTestStore();
      opened.push(o);
      stores.push({ store: o.store, org: await story(o.store, extra) });
    }
    const calls: string[] = [];
    const recorder =
      (store: Store, org: number, label: string): RecordVerdict =>
      async (verdict, text, sha256) => {
        calls.push(label);
        return (
          (await store.findVerdictLeaves(org, [sha256]))[0] ??
          store.transaction((tx) =>
            tx.recordVerdict({ organizationId: org, fingerprint, verdict: text, sha256, compliant: verdict.compliant, createdBy: null, at: 5 }),
          )
        );
      };
    const assert = (i: number, record = recorder(stores[i]!.store, stores[i]!.org, `store ${i}`)) =>
      assertArtifact(
        stores[i]!.store,
        10,
        { org: 'acme', apiBase: '/api/v2' },
        { org: { id: stores[i]!.org, name: 'acme' }, fingerprint, policies: ['gate'] },
        record,
      );

    const first = await assert(0);
    expect([first.compliant, typeof first.log_index]).to.deep.equal([true, 'number']);
    expect((await assert(0)).log_index).to.equal(first.log_index);
    expect(calls).to.deep.equal(['store 0']);
    // Not recorded (null) is not kept: the next recording store is asked.
    const other = await assert(1, async () => null);
    expect(other.log_index).to.equal(null);
    const second = await assert(1);
    expect(calls).to.deep.equal(['store 0', 'store 1']);
    // The other log is a leaf longer before the verdict: its own leaf, not the first store's.
    expect(second.log_index).to.equal(first.log_index! + 1);
    expect((await assert(1)).log_index).to.equal(second.log_index);
    expect(calls).to.deep.equal(['store 0', 'store 1']);
  });
});
