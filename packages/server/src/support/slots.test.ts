import { expect } from 'chai';
import { Slots } from './slots.ts';

describe('Slots (what is held per request or per job)', () => {
  it('holds values under slot numbers, gives each back once, and reuses the numbers of those taken', () => {
    const held = new Slots<{ name: string }>();
    const a = { name: 'a' };
    const b = { name: 'b' };
    const [slotA, slotB] = [held.add(a), held.add(b)];
    expect([slotA, slotB, held.size]).to.deep.equal([0, 1, 2]);
    expect(held.take(slotA)).to.equal(a);
    expect(held.take(slotA)).to.equal(undefined);
    expect(held.size).to.equal(1);
    const c = { name: 'c' };
    expect(held.add(c)).to.equal(slotA);
    expect([...held.values()]).to.deep.equal([c, b]);
    for (const unknown of [2, -1, 0.5, Number.NaN]) expect(held.take(unknown)).to.equal(undefined);
    expect(held.size).to.equal(2);
  });

  it('takes everything at once, after which the numbers start again from the lowest', () => {
    const held = new Slots<{ n: number }>();
    const values = [0, 1, 2].map((n) => ({ n }));
    for (const value of values) held.add(value);
    held.take(1);
    expect(held.takeAll()).to.deep.equal([values[0], values[2]]);
    expect([held.size, [...held.values()]]).to.deep.equal([0, []]);
    expect([held.add({ n: 3 }), held.add({ n: 4 })]).to.deep.equal([0, 1]);
  });

  it('needs no more slots than were ever held at once, however many values pass through', () => {
    const held = new Slots<{ n: number }>();
    const open: number[] = [];
    let highest = 0;
    for (let n = 0; n < 10_000; n++) {
      open.push(held.add({ n }));
      // At most three at once, taken out of order.
      if (open.length === 3) held.take(open.splice(n % 3, 1)[0]!);
      highest = Math.max(highest, ...open);
    }
    expect(highest).to.equal(2);
    expect(held.size).to.equal(2);
  });
});
