/**
 * Environment events: what changed between two consecutive snapshots of an environment, per
 * running artifact (name and fingerprint). Computed once, when a report makes a snapshot (and by
 * migration 0012 for the snapshots kept before), and stored: a read never diffs snapshots.
 */
import type { EnvironmentEventType } from '@trailproof/schema';
import type { RunningArtifact } from '../store/types.ts';
import { artifactKey, byArtifact } from './running.ts';

/** The part of a running artifact an event depends on. */
export type RunningCount = Pick<RunningArtifact, 'name' | 'fingerprint' | 'instance_count'>;

export interface ArtifactChange {
  type: EnvironmentEventType;
  name: string;
  fingerprint: string;
  instancesBefore: number;
  instancesAfter: number;
}

/**
 * The changes from `previous` (none before the first snapshot) to `current`: an artifact that
 * was not running started, one that no longer runs exited, one whose number of instances changed
 * scaled. Ordered by artifact name, then fingerprint.
 */
export function changesBetween(previous: readonly RunningCount[] | undefined, current: readonly RunningCount[]): ArtifactChange[] {
  const before = new Map((previous ?? []).map((a) => [artifactKey(a), a]));
  const after = new Map(current.map((a) => [artifactKey(a), a]));
  const changes: ArtifactChange[] = [];
  for (const [k, now] of after) {
    const was = before.get(k)?.instance_count ?? 0;
    if (was === now.instance_count) continue;
    changes.push({
      type: was === 0 ? 'started' : 'scaled',
      name: now.name,
      fingerprint: now.fingerprint,
      instancesBefore: was,
      instancesAfter: now.instance_count,
    });
  }
  for (const [k, was] of before) {
    if (!after.has(k)) changes.push({ type: 'exited', name: was.name, fingerprint: was.fingerprint, instancesBefore: was.instance_count, instancesAfter: 0 });
  }
  return changes.sort(byArtifact);
}

const instances = (n: number) => `${n} instance${n === 1 ? '' : 's'}`;

/** The event in words, as the reference's `description`. */
export function describeChange(c: Pick<ArtifactChange, 'type' | 'instancesBefore' | 'instancesAfter'>): string {
  const { instancesBefore: was, instancesAfter: now } = c;
  if (c.type === 'started') return `${instances(now)} started running (from ${was} to ${now}).`;
  if (c.type === 'exited') return `${instances(was)} stopped running (from ${was} to ${now}).`;
  return `Scaled ${now > was ? 'up' : 'down'} from ${was} to ${now} instances.`;
}
