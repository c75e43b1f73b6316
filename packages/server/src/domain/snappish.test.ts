import { expect } from 'chai';
import { parseSnappish, parseSnapshotRef } from './snappish.ts';

describe('snapshot expressions (snappish)', () => {
  const now = 1_800_000_000;

  it('reads N, -N, #N, ~N and the @{...} times', () => {
    expect(parseSnapshotRef('3', now)).to.deep.equal({ index: 3 });
    expect(parseSnapshotRef('-1', now)).to.deep.equal({ back: 0 });
    expect(parseSnapshotRef('-3', now)).to.deep.equal({ back: 2 });
    expect(parseSnapshotRef('#7', now)).to.deep.equal({ index: 7 });
    expect(parseSnapshotRef('~0', now)).to.deep.equal({ back: 0 });
    expect(parseSnapshotRef('~5', now)).to.deep.equal({ back: 5 });
    expect(parseSnapshotRef('@{now}', now)).to.deep.equal({ at: now });
    expect(parseSnapshotRef('@{NOW}', now)).to.deep.equal({ at: now });
    expect(parseSnapshotRef('@{2023-10-02T12:00:00}', now)).to.deep.equal({ at: Date.UTC(2023, 9, 2, 12) / 1000 });
    expect(parseSnapshotRef('@{2024-02-29T23:59:59}', now)).to.deep.equal({ at: Date.UTC(2024, 1, 29, 23, 59, 59) / 1000 });
    expect(parseSnapshotRef('@{2.hours.ago}', now)).to.deep.equal({ at: now - 7_200 });
    expect(parseSnapshotRef('@{1.hour.ago}', now)).to.deep.equal({ at: now - 3_600 });
    expect(parseSnapshotRef('@{3.days.ago}', now)).to.deep.equal({ at: now - 3 * 86_400 });
    expect(parseSnapshotRef('@{1.week.ago}', now)).to.deep.equal({ at: now - 604_800 });
    expect(parseSnapshotRef('@{2.months.ago}', now)).to.deep.equal({ at: now - 60 * 86_400 });
  });

  it('refuses anything else', () => {
    for (const bad of [
      '',
      '0',
      '-0',
      '#0',
      '#-1',
      '~-1',
      '~',
      '#',
      '1.5',
      '1e3',
      ' 1',
      '+1',
      '9999999999',
      '@now',
      '@{}',
      '@{soon}',
      '@{2023-02-29T12:00:00}',
      '@{2023-13-01T12:00:00}',
      '@{2023-10-02T24:00:00}',
      '@{2023-10-02T12:00}',
      '@{2023-10-02T12:00:00Z}',
      '@{2.fortnights.ago}',
      '@{-2.hours.ago}',
      '@{2.hours}',
      '@{{now}}',
    ]) {
      expect(parseSnapshotRef(bad, now), bad).to.equal(null);
    }
  });

  it('splits a snappish at its one separator, as the CLI does; an environment alone is its latest', () => {
    expect(parseSnappish('prod', now)).to.deep.equal({ envName: 'prod', ref: { back: 0 } });
    expect(parseSnappish('prod#4', now)).to.deep.equal({ envName: 'prod', ref: { index: 4 } });
    expect(parseSnappish('prod~2', now)).to.deep.equal({ envName: 'prod', ref: { back: 2 } });
    expect(parseSnappish('prod@{now}', now)).to.deep.equal({ envName: 'prod', ref: { at: now } });
    // A dash is part of a name, not a separator.
    expect(parseSnappish('prod-1', now)).to.deep.equal({ envName: 'prod-1', ref: { back: 0 } });
    for (const bad of ['', '#4', 'prod#', 'prod~1#2', 'prod#1@{now}', 'prod@', 'prod~x']) expect(parseSnappish(bad, now), bad).to.equal(null);
  });
});
