import { expect } from 'chai';
import { restartPolicy } from './restart-policy.ts';

const neverListened = (listening: number) => ({ listenedMs: undefined, listening });

describe('the worker pool restart policy', () => {
  it('stops at the first start when a worker dies before any listened, with none listening', () => {
    expect(restartPolicy().died(neverListened(0))).to.deep.equal({ stop: 'a worker stopped before it listened: stopping' });
  });

  it('starts another when one dies before it listens while another listens, waiting twice as long each time, up to the cap', () => {
    const policy = restartPolicy({ firstDelayMs: 1000, maxDelayMs: 10_000 });
    policy.listened();
    expect(policy.died({ listenedMs: 5_000, listening: 1 })).to.deep.equal({ restartInMs: 1000 });
    const waits = Array.from({ length: 6 }, () => policy.died(neverListened(1)));
    expect(waits).to.deep.equal([2000, 4000, 8000, 10_000, 10_000, 10_000].map((restartInMs) => ({ restartInMs })));
  });

  it('waits the first delay again after a worker that stayed up long enough dies', () => {
    const policy = restartPolicy({ firstDelayMs: 1000, steadyMs: 60_000 });
    policy.listened();
    policy.died(neverListened(1));
    policy.died(neverListened(1));
    expect(policy.died({ listenedMs: 59_000, listening: 1 })).to.deep.equal({ restartInMs: 4000 });
    expect(policy.died({ listenedMs: 60_000, listening: 1 })).to.deep.equal({ restartInMs: 1000 });
    expect(policy.died({ listenedMs: 3_600_000, listening: 1 })).to.deep.equal({ restartInMs: 1000 });
  });

  it('after the pool has served, stops only when no worker listens and the last starts all failed', () => {
    const policy = restartPolicy({ giveUpAfter: 3 });
    policy.listened();
    // Every worker died after serving: each replacement is tried, up to three failures in a row.
    expect(policy.died({ listenedMs: 1000, listening: 0 })).to.have.property('restartInMs');
    expect(policy.died(neverListened(0))).to.have.property('restartInMs');
    expect(policy.died(neverListened(0))).to.have.property('restartInMs');
    expect(policy.died(neverListened(0))).to.deep.equal({ stop: 'no worker is listening and 3 starts in a row failed: stopping' });
  });

  it('never stops while a worker listens, and counts failed starts again from one that listened', () => {
    const policy = restartPolicy({ giveUpAfter: 2 });
    policy.listened();
    for (let i = 0; i < 10; i++) expect(policy.died(neverListened(1))).to.have.property('restartInMs');
    policy.listened();
    expect(policy.died(neverListened(0))).to.have.property('restartInMs');
    expect(policy.died(neverListened(0))).to.have.property('stop');
  });
});
