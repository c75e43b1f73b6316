import { expect } from 'chai';
import { cacheKey, createPageCache, estimatedBytes } from './page-cache.ts';

/** A read that counts its calls and answers `answer`. */
function counted<T>(answer: T) {
  const read = async () => {
    read.calls++;
    return answer;
  };
  read.calls = 0;
  return read;
}

describe('the console page cache', () => {
  it('writes named fields as one key whatever their order, a number apart from its text, undefined left out', () => {
    expect(cacheKey({ org: 1, flow: 'app', page: 2 })).to.equal(cacheKey({ page: 2, flow: 'app', org: 1 }));
    expect(cacheKey({ org: 1, flow: 'app', envName: undefined })).to.equal(cacheKey({ flow: 'app', org: 1 }));
    expect(cacheKey({ org: 1 })).not.to.equal(cacheKey({ org: '1' }));
    expect(cacheKey({ flow: 'a', page: 12 })).not.to.equal(cacheKey({ flow: 'a1', page: 2 }));
    expect(cacheKey({ a: 'x', b: 'y' })).not.to.equal(cacheKey({ a: 'y', b: 'x' }));
  });

  it('answers from memory while nothing is committed, and reads again after a commit', async () => {
    let version = 1;
    const cache = createPageCache(() => version);
    const read = counted({ trails: ['b1'] });
    const first = await cache.read('flow', { org: 1, flow: 'app' }, read);
    expect(await cache.read('flow', { flow: 'app', org: 1 }, read)).to.equal(first);
    expect(read.calls).to.equal(1);
    version = 2;
    await cache.read('flow', { org: 1, flow: 'app' }, read);
    expect(read.calls).to.equal(2);
  });

  it('keeps reads under different names or fields apart', async () => {
    const cache = createPageCache(() => 1);
    expect(await cache.read('flow', { org: 1 }, async () => 'flow')).to.equal('flow');
    expect(await cache.read('environment', { org: 1 }, async () => 'environment')).to.equal('environment');
    expect(await cache.read('flow', { org: 2 }, async () => 'other org')).to.equal('other org');
    expect(await cache.read('flow', { org: 1 }, async () => 'not read')).to.equal('flow');
  });

  it('reads every time on a store that cannot tell commits apart, and asks again after nothing was found', async () => {
    const uncached = createPageCache(undefined);
    expect(uncached.keeps).to.equal(false);
    expect(await uncached.remember('a', {}, 1, async () => ({ value: 'y', until: 1000 }))).to.equal('y');
    const read = counted('x');
    await uncached.read('a', {}, read);
    await uncached.read('a', {}, read);
    expect(read.calls).to.equal(2);

    const cache = createPageCache(() => 1);
    const none = counted(null);
    await cache.read('a', {}, none);
    await cache.read('a', {}, none);
    expect(none.calls).to.equal(2);
  });

  it('does not keep an answer read while a commit landed', async () => {
    let version = 1;
    const cache = createPageCache(() => version);
    const read = async () => {
      version++;
      return 'read during a commit';
    };
    await cache.read('a', {}, read);
    const again = counted('again');
    await cache.read('a', {}, again);
    expect(again.calls).to.equal(1);
  });

  it('shares one read among the requests that ask for it at once, until a commit; a failed read is asked again', async () => {
    let version = 1;
    const cache = createPageCache(() => version);
    let release = () => {};
    let calls = 0;
    const slow = () => {
      const n = ++calls;
      return new Promise<string>((resolve) => {
        release = () => resolve(`read ${n}`);
      });
    };
    // Sixteen requests right after a commit (as under load): one read, not sixteen.
    const answers = Array.from({ length: 16 }, () => cache.read('flow', { org: 1 }, slow));
    release();
    expect(await Promise.all(answers)).to.deep.equal(Array(16).fill('read 1'));
    expect(calls).to.equal(1);
    // A commit while a read is under way: a later request reads anew instead of sharing the older read.
    const before = cache.read('flow', { org: 2 }, slow);
    const releaseBefore = release;
    version = 2;
    const after = cache.read('flow', { org: 2 }, slow);
    releaseBefore();
    release();
    expect(await before).to.equal('read 2');
    expect(await after).to.equal('read 3');
    const failing = async () => {
      throw new Error('the store is busy');
    };
    const failed = await Promise.allSettled([cache.read('x', {}, failing), cache.read('x', {}, failing)]);
    expect(failed.map((f) => f.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await cache.read('x', {}, async () => 'read again')).to.equal('read again');
  });

  it('remembers an answer while its time holds and nothing is committed: not at or after its until, not when read at or after it', async () => {
    let version = 1;
    const cache = createPageCache(() => version);
    expect(cache.keeps).to.equal(true);
    let calls = 0;
    const page = (until: number) => async () => ({ value: `page ${++calls}`, until });
    expect(await cache.remember('page', { org: 1 }, 100, page(130))).to.equal('page 1');
    // Current for any request before 130, whatever the request's own reader would say.
    expect(await cache.remember('page', { org: 1 }, 129.9, page(1000))).to.equal('page 1');
    // At its until it is read again.
    expect(await cache.remember('page', { org: 1 }, 130, page(160))).to.equal('page 2');
    expect(await cache.remember('page', { org: 1 }, 150, page(1000))).to.equal('page 2');
    // A commit ends it before its until.
    version = 2;
    expect(await cache.remember('page', { org: 1 }, 151, page(200))).to.equal('page 3');
    // An answer whose until is not after the request's time is not kept.
    expect(await cache.remember('page', { org: 2 }, 300, page(300))).to.equal('page 4');
    expect(await cache.remember('page', { org: 2 }, 300, page(400))).to.equal('page 5');
    expect(await cache.remember('page', { org: 2 }, 301, page(1000))).to.equal('page 5');
    // Another organisation's (or role's) fields are another entry.
    expect(await cache.remember('page', { org: 1, role: 'admin' }, 152, page(1000))).to.equal('page 6');
    expect(await cache.remember('page', { org: 1, role: 'reader' }, 152, page(1000))).to.equal('page 7');
    expect(await cache.remember('page', { org: 1 }, 152, page(1000))).to.equal('page 3');
    expect(calls).to.equal(7);
  });

  it('shares a read under way only with requests its until covers', async () => {
    const cache = createPageCache(() => 1);
    let release = () => {};
    let calls = 0;
    const slow = (until: number) => () => {
      const n = ++calls;
      return new Promise<{ value: string; until: number }>((resolve) => {
        release = () => resolve({ value: `read ${n}`, until });
      });
    };
    const first = cache.remember('page', {}, 100, slow(110));
    const covered = cache.remember('page', {}, 105, slow(1000));
    const late = cache.remember('page', {}, 120, slow(1000));
    const releaseFirst = release;
    releaseFirst();
    expect(await first).to.equal('read 1');
    expect(await covered).to.equal('read 1');
    // The late request found the first read not covering it, and read again.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await late).to.equal('read 2');
    expect(calls).to.equal(2);
  });

  it('keeps at most its entries, dropping the least recently read first', async () => {
    const cache = createPageCache(() => 1, { entries: 2, bytes: 1 << 20 });
    await cache.read('p', { n: 1 }, async () => 'one');
    await cache.read('p', { n: 2 }, async () => 'two');
    await cache.read('p', { n: 1 }, async () => 'not read');
    await cache.read('p', { n: 3 }, async () => 'three');
    expect(await cache.read('p', { n: 1 }, async () => 'read again')).to.equal('one');
    expect(await cache.read('p', { n: 2 }, async () => 'read again')).to.equal('read again');
  });

  it('keeps at most its bytes, and never an answer larger than all of them', async () => {
    const text = (n: number) => 'x'.repeat(n);
    const bytes = estimatedBytes(text(1000));
    const cache = createPageCache(() => 1, { entries: 100, bytes: 2 * bytes + 10 });
    await cache.read('p', { n: 1 }, async () => text(1000));
    await cache.read('p', { n: 2 }, async () => text(1000));
    await cache.read('p', { n: 3 }, async () => text(1000));
    expect(await cache.read('p', { n: 1 }, async () => 'read again')).to.equal('read again');
    expect(await cache.read('p', { n: 3 }, async () => 'read again')).to.equal(text(1000));

    const huge = counted(text(10_000));
    await cache.read('p', { n: 4 }, huge);
    await cache.read('p', { n: 4 }, huge);
    expect(huge.calls).to.equal(2);
  });

  it('estimates maps, sets, arrays and shared objects by what they hold, each object once', () => {
    const row = { name: 'x'.repeat(100) };
    expect(estimatedBytes([row])).to.be.greaterThan(200);
    expect(estimatedBytes(new Map([['k', row]]))).to.be.greaterThan(200);
    expect(estimatedBytes(new Set([row]))).to.be.greaterThan(200);
    expect(estimatedBytes([row, row])).to.be.lessThan(2 * estimatedBytes([row]));
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    expect(estimatedBytes(cycle)).to.be.greaterThan(0);
  });
});
