import { expect } from 'chai';
import { digestColumns, digestOf } from './chain.ts';

describe('chain digests of rows', () => {
  // An attestation row as verification selects it before migration 0014 added `created_by_token`.
  const before0014 = {
    id: 7, trail_id: 2, name: 'unit', type: 'junit', data: '{"attestation_name":"unit"}', artifact_fingerprint: null,
    attachment_sha256: null, attachment_name: null, compliant: 1, created_at: 1_763_800_000.5,
  };

  it('give a row kept from before a column was added the same digest once the column is there and null', () => {
    expect(digestColumns.attestations).to.include('created_by_token');
    expect(digestOf({ ...before0014, created_by_token: null })).to.equal(digestOf(before0014));
  });

  it('cover the column once it is set, and a null one is not a missing one for other columns', () => {
    const stored = digestOf({ ...before0014, created_by_token: 'AbCdEfGh12345678' });
    expect(stored).to.not.equal(digestOf(before0014));
    expect(digestOf({ ...before0014, created_by_token: 'someoneElse12345' })).to.not.equal(stored);
    // Only the columns added later drop out when null: a null fingerprint still counts.
    const { artifact_fingerprint: _, ...withoutFingerprint } = before0014;
    expect(digestOf(withoutFingerprint)).to.not.equal(digestOf(before0014));
  });
});
