/** What judging worked out is kept by key, the least recently used dropped first once the keys' characters pass the bound. */
import { expect } from 'chai';
import { judgementKey, keep, recall } from './judgement-memory.ts';

describe('judgement memory', () => {
  const keyOf = (name: string) =>
    judgementKey(
      { organizationId: 1, scope: 'environment', environment: 'prod', flow: null, policies: '[]', artifact: { name, fingerprint: 'f'.repeat(64) } },
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

  it('keys differ by organisation, scope, environment, flow, policies, name and facts', () => {
    const base = {
      organizationId: 1,
      scope: 'environment',
      environment: 'prod',
      flow: null,
      policies: '[[1,"p",1,"s"]]',
      artifact: { name: 'a', fingerprint: 'f' },
    };
    const keys = [
      judgementKey(base, '[]'),
      judgementKey({ ...base, organizationId: 2 }, '[]'),
      judgementKey({ ...base, environment: 'staging' }, '[]'),
      judgementKey({ ...base, scope: 'policy' }, '[]'),
      judgementKey({ ...base, flow: 'app' }, '[]'),
      judgementKey({ ...base, policies: '[[1,"p",2,"t"]]' }, '[]'),
      judgementKey({ ...base, artifact: { name: 'b', fingerprint: 'f' } }, '[]'),
      judgementKey(base, '[1]'),
    ];
    expect(new Set(keys).size).to.equal(keys.length);
  });
});
