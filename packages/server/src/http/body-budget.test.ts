import { expect } from 'chai';
import { ByteBudget } from './body-budget.ts';

describe('ByteBudget', () => {
  it('takes what fits, refuses the rest, and takes again what was given back', () => {
    const budget = new ByteBudget(100);
    expect(budget.tryTake(60)).to.equal(true);
    expect(budget.tryTake(50)).to.equal(false);
    expect(budget.tryTake(40)).to.equal(true);
    expect(budget.inUse).to.equal(100);
    budget.give(60);
    expect(budget.tryTake(50)).to.equal(true);
    expect(budget.inUse).to.equal(90);
  });

  it('lets in a body larger than the whole budget only when nothing else is held', () => {
    const budget = new ByteBudget(100);
    expect(budget.tryTake(150)).to.equal(true);
    expect(budget.tryTake(1)).to.equal(false);
    budget.give(150);
    expect(budget.tryTake(1)).to.equal(true);
    expect(budget.tryTake(150)).to.equal(false);
  });

  it('refuses a limit that is not a positive whole number', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => new ByteBudget(limit), String(limit)).to.throw(RangeError);
  });
});
