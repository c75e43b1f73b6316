/**
 * Where an artifact runs and ran, and its history, from its fingerprint's environment events:
 * in the words Kosli's `get artifact` and `search` print ("Started running in prod#3 environment").
 */
import type { FingerprintEventRow } from '../store/types.ts';

/** An environment and the snapshot that shows the artifact there (running: the latest; exited: the first without it). */
export interface EnvironmentAt {
  environment_name: string;
  snapshot_index: number;
}

export interface ArtifactHistoryEvent {
  event: string;
  type: 'created' | 'attested' | 'started' | 'scaled' | 'exited';
  timestamp: number;
  environment_name: string | null;
  snapshot_index: number | null;
}

export interface Whereabouts {
  running: EnvironmentAt[];
  exited: EnvironmentAt[];
  /** The environment events, oldest first. */
  history: ArtifactHistoryEvent[];
}

const wording = (e: FingerprintEventRow) => {
  const at = `${e.environmentName}#${e.snapshotIndex} environment`;
  if (e.type === 'started') return `Started running in ${at}`;
  if (e.type === 'exited') return `No longer running in ${at}`;
  return `Scaled ${e.instancesAfter > e.instancesBefore ? 'up' : 'down'} from ${e.instancesBefore} to ${e.instancesAfter} in ${at}`;
};

/**
 * One fingerprint's whereabouts from its events (oldest first) and each environment's latest
 * snapshot index: an environment whose last event for it is an exit is where it ran, any other
 * is where it runs (in the order of their last events).
 */
export function whereaboutsOf(fingerprint: string, events: readonly FingerprintEventRow[], latestSnapshots: ReadonlyMap<number, number>): Whereabouts {
  const lastByEnvironment = new Map<number, FingerprintEventRow>();
  const history: ArtifactHistoryEvent[] = [];
  for (const e of events) {
    if (e.fingerprint !== fingerprint) continue;
    lastByEnvironment.delete(e.environmentId);
    lastByEnvironment.set(e.environmentId, e);
    history.push({ event: wording(e), type: e.type, timestamp: e.reportedAt, environment_name: e.environmentName, snapshot_index: e.snapshotIndex });
  }
  const running: EnvironmentAt[] = [];
  const exited: EnvironmentAt[] = [];
  for (const [environmentId, last] of lastByEnvironment) {
    if (last.type === 'exited') exited.push({ environment_name: last.environmentName, snapshot_index: last.snapshotIndex });
    else running.push({ environment_name: last.environmentName, snapshot_index: latestSnapshots.get(environmentId) ?? last.snapshotIndex });
  }
  return { running, exited, history };
}
