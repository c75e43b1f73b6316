/** The table of failed token checks: budgets per address, refilled over a minute, and bounded in size. */
import { expect } from 'chai';
import { addressKey, FailedAuthLimit } from './failed-auth-limit.ts';

describe('the limit on failed token checks', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('allows perMinute failures at once, then asks for the time one failure takes to refill', () => {
    const limit = new FailedAuthLimit({ perMinute: 3, now: clock });
    for (let i = 0; i < 3; i++) {
      expect(limit.waitSeconds('10.0.0.1')).to.equal(0);
      limit.failed('10.0.0.1');
    }
    expect(limit.waitSeconds('10.0.0.1')).to.equal(20);
    now += 10_000;
    expect(limit.waitSeconds('10.0.0.1')).to.equal(10);
    now += 10_000;
    expect(limit.waitSeconds('10.0.0.1')).to.equal(0);
    limit.failed('10.0.0.1');
    expect(limit.waitSeconds('10.0.0.1'), 'one failure refilled, and spent').to.equal(20);
  });

  it("counts each address apart: one address's failures leave another's budget whole", () => {
    const limit = new FailedAuthLimit({ perMinute: 2, now: clock });
    limit.failed('10.0.0.1');
    limit.failed('10.0.0.1');
    expect(limit.waitSeconds('10.0.0.1')).to.be.above(0);
    expect(limit.waitSeconds('10.0.0.2')).to.equal(0);
  });

  it('remembers at most `addresses` addresses, forgetting the one that failed least recently', () => {
    const limit = new FailedAuthLimit({ perMinute: 1, addresses: 100, now: clock });
    for (let i = 0; i < 1000; i++) limit.failed(`10.0.${i >> 8}.${i & 255}`);
    expect(limit.size).to.equal(100);
    expect(limit.waitSeconds('10.0.3.231'), 'the last one is kept').to.be.above(0);
    expect(limit.waitSeconds('10.0.0.0'), 'the first one is forgotten').to.equal(0);
  });

  it('forgets a budget refilled whole', () => {
    const limit = new FailedAuthLimit({ perMinute: 2, now: clock });
    limit.failed('10.0.0.1');
    now += 60_000;
    expect(limit.waitSeconds('10.0.0.1')).to.equal(0);
    expect(limit.size).to.equal(0);
  });

  it('counts IPv6 addresses by their /64 and IPv4-mapped ones as IPv4', () => {
    expect(addressKey('::ffff:127.0.0.1')).to.equal('127.0.0.1');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressKey('::1')).to.equal('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    const limit = new FailedAuthLimit({ perMinute: 1, now: clock });
    limit.failed('2001:db8:1:2::1');
    expect(limit.waitSeconds('2001:db8:1:2:ffff::7'), 'the same /64').to.be.above(0);
    expect(limit.waitSeconds('2001:db8:1:3::1'), 'another /64').to.equal(0);
  });

  it('refuses settings that would make no limit', () => {
    expect(() => new FailedAuthLimit({ perMinute: 0 })).to.throw(RangeError);
    expect(() => new FailedAuthLimit({ perMinute: 1.5 })).to.throw(RangeError);
    expect(() => new FailedAuthLimit({ addresses: 0 })).to.throw(RangeError);
  });
});
