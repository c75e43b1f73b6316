import { expect } from 'chai';
import { canonicalJson, canonicalJsonOfPlain, digestColumns, digestOf } from './chain.ts';

describe('chain digests of rows', () => {
  // An attestation row as verification selects it before migration 0014 added `created_by_token`.
  const before0014 = {
    id: 7,
    trail_id: 2,
    name: 'unit',
    type: 'junit',
    data: '{"attestation_name":"unit"}',
    artifact_fingerprint: null,
    attachment_sha256: null,
    attachment_name: null,
    compliant: 1,
    created_at: 1_763_800_000.5,
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
  it('give approvals, reviews and snapshots kept from before migration 0015 the same digest with the column null', () => {
    const before0015 = {
      approvals: {
        id: 1,
        flow_id: 2,
        release_number: 1,
        target_artifact: 'f'.repeat(64),
        base_artifact: '',
        artifact_name: 'api',
        description: 'release',
        environment: null,
        src_commit_list: '[]',
        user_data: null,
        created_at: 1_763_800_000,
      },
      reviews: { id: 1, approval_id: 1, state: 'APPROVED', comment: '', approved_by: 'ada', approval_url: '', timestamp: 1_763_800_001 },
      snapshots: { id: 1, environment_id: 3, snapshot_index: 1, artifacts: '[]', created_at: 1_763_800_002 },
    };
    for (const [table, row] of Object.entries(before0015)) {
      expect(digestColumns[table as keyof typeof before0015], table).to.include('created_by_token');
      expect(digestOf({ ...row, created_by_token: null }), table).to.equal(digestOf(row));
      expect(digestOf({ ...row, created_by_token: 'AbCdEfGh12345678' }), table).to.not.equal(digestOf(row));
    }
  });
});

describe('canonical JSON of plain data, the fast way', () => {
  it('is the text canonicalJson writes: sorted keys at every level, undefined left out of objects and null in arrays, escapes, numbers', () => {
    const values: unknown[] = [
      { b: 1, a: [3, { d: null, c: 'x"\u2028\n' }], é: true, A: undefined },
      [undefined, { z: { y: { x: [] } } }, -0, 1e21, 0.1],
      { flow: { tags: { zeta: '1', Alpha: '2', _k: '' } }, policies: [{ version: 2, name: 'p' }] },
      'text',
      null,
      7,
    ];
    for (const v of values) expect(canonicalJsonOfPlain(v)).to.equal(canonicalJson(v));
  });

  it('writes an object with array-index keys (which the engine orders by number) as canonicalJson does', () => {
    const tags = { 10: 'a', 9: 'b', x: 'c' };
    expect(canonicalJson(tags)).to.equal('{"10":"a","9":"b","x":"c"}');
    expect(canonicalJsonOfPlain({ flow: { tags } })).to.equal(canonicalJson({ flow: { tags } }));
  });
});
