import { expect } from 'chai';
import { oncePerTurn, rememberTokensUntilChange } from './remembered.ts';

describe('oncePerTurn (how SQLite asks whether tokens may have changed)', () => {
  it('reads once in a turn of the event loop, microtasks included, and again in each later turn', async () => {
    let reads = 0;
    const version = oncePerTurn(() => ++reads);
    expect([version(), version()]).to.deep.equal([1, 1]);
    await Promise.resolve();
    expect(version()).to.equal(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(version()).to.equal(2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect([version(), version(), reads]).to.deep.equal([3, 3, 3]);
  });
});

describe('rememberTokensUntilChange (tokens, sessions, log sizes, console pages)', () => {
  it('asks once per key until the version moves, keeps at most `max` (the oldest dropped), and never what is not found', async () => {
    const asked: string[] = [];
    let version = 1;
    const find = rememberTokensUntilChange(
      async (key) => {
        asked.push(key);
        return key === 'none' ? undefined : `found ${key}`;
      },
      () => version,
      2,
    );
    for (const key of ['a', 'b', 'a', 'none', 'none']) await find(key);
    expect(asked).to.deep.equal(['a', 'b', 'none', 'none']);
    await find('c'); // a third kept: 'a', the oldest, is dropped
    await find('b');
    await find('a');
    expect(asked.slice(4)).to.deep.equal(['c', 'a']);
    version = 2;
    expect(await find('c')).to.equal('found c');
    expect(asked.slice(6)).to.deep.equal(['c']);
  });
});
