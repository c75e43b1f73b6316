/** What judging worked out is kept by key, the least recently used dropped first once the keys' characters pass the bound. */
import { expect } from 'chai';
import { askedKey, judgementKey, keep, recall } from './judgement-memory.ts';

describe('judgement memory', () => {
  const keyOf = (name: string) =>
    judgementKey(
      askedKey({ organizationId: 1, scope: 'environment', environment: 'prod', flow: null, policies: '[]' }),
      { name, fingerprint: 'f'.repeat(64) },
      'x'.repeat(1_400_000),
    );

  it('answers what was kept, and forgets the least recently used beyond some six million characters of keys', () => {
    const worked = (n: number) => ({ evaluations: [], n });
    for (const name of ['a', 'b', 'c', 'd']) keep(keyOf(name), worked(name.charCodeAt(0)));
    expect(recall(keyOf('a'))).to.deep.include({ n: 97 });
    keep(keyOf('e'), worked(101));
    expect(recall(keyOf('b'))).to.equal(undefined);
    expect(['a', 'c', 'd', 'e'].map((name) => recall(keyOf(name)) !== undefined)).to.deep.equal([true, true, true, true]);
    keep(keyOf('a'), worked(1));
    keep(keyOf('f'), worked(102));
    expect(recall(keyOf('a'))).to.deep.include({ n: 1 });
    expect(recall(keyOf('c'))).to.equal(undefined);
  });

  it('keys differ by organisation, scope, environment, flow, policies, name, fingerprint and facts', () => {
    const base = { organizationId: 1, scope: 'environment', environment: 'prod', flow: null, policies: '[[1,"p",1,"s"]]' };
    const artifact = { name: 'a', fingerprint: 'f' };
    const keys = [
      judgementKey(askedKey(base), artifact, '[]'),
      judgementKey(askedKey({ ...base, organizationId: 2 }), artifact, '[]'),
      judgementKey(askedKey({ ...base, environment: 'staging' }), artifact, '[]'),
      judgementKey(askedKey({ ...base, scope: 'policy' }), artifact, '[]'),
      judgementKey(askedKey({ ...base, flow: 'app' }), artifact, '[]'),
      judgementKey(askedKey({ ...base, policies: '[[1,"p",2,"t"]]' }), artifact, '[]'),
      judgementKey(askedKey(base), { name: 'b', fingerprint: 'f' }, '[]'),
      judgementKey(askedKey(base), { name: 'a', fingerprint: 'g' }, '[]'),
      judgementKey(askedKey(base), artifact, '[1]'),
    ];
    expect(new Set(keys).size).to.equal(keys.length);
    // What is asked keeps its number.
    expect(judgementKey(askedKey({ ...base }), artifact, '[]')).to.equal(keys[0]);
  });
});
