import { expect } from 'chai';
import fc from 'fast-check';
import { relative, relativeLastsUntil, utc, utcLastsUntil } from './time.tsx';

describe('console times: until when their text holds', () => {
  it('writes "how long ago" the same from now until relativeLastsUntil, and otherwise just then', () => {
    // Times a second to years apart, in the past and to come, at fractions of a second.
    const span = fc.oneof(fc.double({ min: -120, max: 120, noNaN: true }), fc.double({ min: -3e7, max: 3e7, noNaN: true }));
    fc.assert(
      fc.property(fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }), span, fc.double({ min: 0, max: 1, noNaN: true }), (at, delta, part) => {
        const now = at + delta;
        const until = relativeLastsUntil(at, now);
        expect(until).to.be.greaterThan(now);
        const text = relative(at, now);
        // Any time before until writes the same; until itself writes another text when the time is past (to come: at its next second, may be the same).
        expect(relative(at, now + (until - now) * part * 0.999_999), JSON.stringify({ at, now, until })).to.equal(text);
        if (Math.round(now - at) >= 0) expect(relative(at, until), JSON.stringify({ at, now, until })).not.to.equal(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a UTC time the same until the next minute', () => {
    fc.assert(
      fc.property(fc.double({ min: 1_700_000_000, max: 1_800_000_000, noNaN: true }), (now) => {
        const until = utcLastsUntil(now);
        expect(until).to.be.greaterThan(now);
        expect(utc(until - 0.001)).to.equal(utc(now));
        expect(utc(until)).not.to.equal(utc(now));
      }),
    );
  });
});
