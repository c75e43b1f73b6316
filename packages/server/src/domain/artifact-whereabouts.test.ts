import { expect } from 'chai';
import type { FingerprintEventRow } from '../store/types.ts';
import { whereaboutsOf } from './artifact-whereabouts.ts';

const fp = 'a'.repeat(64);
const other = 'b'.repeat(64);
const event = (
  environmentId: number,
  type: FingerprintEventRow['type'],
  snapshotIndex: number,
  before: number,
  after: number,
  fingerprint = fp,
): FingerprintEventRow => ({
  fingerprint,
  environmentId,
  environmentName: environmentId === 1 ? 'beta' : 'prod',
  artifactName: 'app',
  type,
  snapshotIndex,
  instancesBefore: before,
  instancesAfter: after,
  reportedAt: 100 + snapshotIndex,
});

describe('where an artifact runs and ran, from its environment events', () => {
  it('runs where its last event is a start or a scaling (at the latest snapshot), ran where it is an exit (at the exit)', () => {
    const events = [
      event(1, 'started', 1, 0, 1),
      event(2, 'started', 3, 0, 1),
      event(2, 'scaled', 4, 1, 3),
      event(1, 'exited', 5, 1, 0),
      event(1, 'started', 2, 0, 1, other),
    ];
    const where = whereaboutsOf(
      fp,
      events,
      new Map([
        [1, 9],
        [2, 7],
      ]),
    );
    expect(where.running).to.deep.equal([{ environment_name: 'prod', snapshot_index: 7 }]);
    expect(where.exited).to.deep.equal([{ environment_name: 'beta', snapshot_index: 5 }]);
    expect(where.history.map((e) => e.event)).to.deep.equal([
      'Started running in beta#1 environment',
      'Started running in prod#3 environment',
      'Scaled up from 1 to 3 in prod#4 environment',
      'No longer running in beta#5 environment',
    ]);
  });

  it('started again after an exit runs again; scaled down is worded so; no events, nowhere', () => {
    const events = [event(1, 'started', 1, 0, 2), event(1, 'scaled', 2, 2, 1), event(1, 'exited', 3, 1, 0), event(1, 'started', 6, 0, 1)];
    const where = whereaboutsOf(fp, events, new Map([[1, 6]]));
    expect(where.running).to.deep.equal([{ environment_name: 'beta', snapshot_index: 6 }]);
    expect(where.exited).to.deep.equal([]);
    expect(where.history[1]!.event).to.equal('Scaled down from 2 to 1 in beta#2 environment');
    expect(whereaboutsOf(other, events, new Map())).to.deep.equal({ running: [], exited: [], history: [] });
  });
});
