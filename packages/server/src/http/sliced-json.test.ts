import { expect } from 'chai';
import { text } from 'node:stream/consumers';
import { jsonInSlices, jsonStreamInSlices } from './sliced-json.ts';

describe('jsonInSlices', () => {
  it('writes what JSON.stringify writes, undefined members left out', async () => {
    const value = { a: 1, items: [{ x: 'é"\n' }, null, [1, 2]], gone: undefined, b: { c: [] } };
    expect(await jsonInSlices(value, 'items')).to.equal(JSON.stringify(value));
    expect(await jsonInSlices({ items: [] }, 'items')).to.equal('{"items":[]}');
  });

  it('lets other work run between the items', async () => {
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const items = Array.from({ length: 20 }, (_, i) => ({ i, filler: 'x'.repeat(100_000) }));
    await jsonInSlices({ items }, 'items');
    running = false;
    // Another callback waiting for the event loop ran between the items, not only after the last.
    expect(turns, 'turns of the event loop while writing 20 items').to.be.at.least(19);
  });
});

describe('jsonStreamInSlices', () => {
  it('streams what JSON.stringify writes, of an object around its list or of an array', async () => {
    const value = { a: 1, gone: undefined, items: [{ x: 'é"\n' }, null, [1, 2]], b: { c: [] } };
    expect(await text(jsonStreamInSlices(value, 'items'))).to.equal(JSON.stringify(value));
    expect(await text(jsonStreamInSlices({ gone: undefined, items: [] }, 'items'))).to.equal('{"items":[]}');
    expect(await text(jsonStreamInSlices([{ a: 1 }, 'b', null]))).to.equal('[{"a":1},"b",null]');
    expect(await text(jsonStreamInSlices([]))).to.equal('[]');
  });
});
