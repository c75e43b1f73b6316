import { expect } from 'chai';
import { oncePerTurn } from './remembered.ts';

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
