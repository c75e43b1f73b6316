import { expect } from 'chai';
import fc from 'fast-check';
import { render } from 'preact-render-to-string';
import { notingTimes, relative, relativeLastsUntil, Time, timeMarkup, utc, utcLastsUntil } from './time.tsx';

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
        // Any time before until writes the same, and just after it (a millisecond: seconds are floating point) another text
        // when the time is past (to come: at its next second, which may write the same).
        const before = Math.max(now, until - 0.001);
        expect(relative(at, now + (before - now) * part), JSON.stringify({ at, now, until })).to.equal(text);
        if (Math.round(now - at) >= 0) expect(relative(at, until + 0.001), JSON.stringify({ at, now, until })).not.to.equal(text);
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

  it('notes until when the times a render writes hold, the least of them, each render its own', async () => {
    const now = 1_760_000_000;
    const pause = () => new Promise((resolve) => setImmediate(resolve));
    const [minutes, seconds, none] = await Promise.all([
      notingTimes(async () => {
        await pause();
        // As a page writes them: markup while it renders, components once its content is written.
        const row = timeMarkup(now - 3 * 3600, now).text;
        await pause();
        return row + render(Time({ at: now - 90, now }));
      }),
      notingTimes(async () => {
        await pause();
        return render(Time({ at: now - 5, now })) + timeMarkup(0, now).text;
      }),
      notingTimes(async () => 'no time'),
    ]);
    expect(minutes.until).to.equal(now - 90 + 120 - 0.5);
    expect(minutes.value).to.contain('3 h ago').and.contain('1 min ago');
    expect(seconds.until).to.equal(now - 5 + 6 - 0.5);
    expect(none.until).to.equal(Number.POSITIVE_INFINITY);
    // Outside a render nothing is noted, and nothing fails.
    expect(render(Time({ at: now - 5, now }))).to.contain('5 s ago');
  });
});
