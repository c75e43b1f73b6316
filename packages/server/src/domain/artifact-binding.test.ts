/** The binding rule between a trail's attestations and its artifacts, in both orders (it is a function of both rows). */
import { expect } from 'chai';
import { bindsTo } from './artifact-binding.ts';

describe('binding attestations to artifacts', () => {
  const artifact = { fingerprint: 'f'.repeat(64), templateReferenceName: 'backend', gitCommit: 'c'.repeat(40) };

  it('binds by fingerprint when the attestation carries one, whatever its name', () => {
    expect(bindsTo({ fingerprint: 'f'.repeat(64), targets: [], commit: null }, artifact)).to.equal(true);
    expect(bindsTo({ fingerprint: 'e'.repeat(64), targets: ['backend'], commit: 'c'.repeat(40) }, artifact)).to.equal(false);
  });

  it('binds by template name and commit otherwise; another commit leaves it unbound', () => {
    expect(bindsTo({ fingerprint: null, targets: ['backend'], commit: 'c'.repeat(40) }, artifact)).to.equal(true);
    expect(bindsTo({ fingerprint: null, targets: ['backend'], commit: 'd'.repeat(40) }, artifact)).to.equal(false);
    expect(bindsTo({ fingerprint: null, targets: ['frontend'], commit: 'c'.repeat(40) }, artifact)).to.equal(false);
    expect(bindsTo({ fingerprint: null, targets: [], commit: 'c'.repeat(40) }, artifact)).to.equal(false);
    expect(bindsTo({ fingerprint: null, targets: ['backend'], commit: null }, artifact)).to.equal(true);
  });
});
