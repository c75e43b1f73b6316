/**
 * Seeds the artifact reads' data straight into a SQLite database the server has migrated (direct
 * SQL inserts in big transactions: reporting a million artifacts through the API takes hours on
 * the shared machine): the organisation `bench` with 100 flows, `trails` trails spread over them,
 * `perTrail` artifacts each on the trail's commit, and 10 environments whose first snapshot runs
 * 100 artifacts each (the first 1,000 fingerprints), with their `started` events. Deterministic.
 */
import { createHash } from 'node:crypto';
import { seedDatabase } from './bench-db.ts';

export const artifactSeed = { flows: 100, environments: 10, runningPerEnvironment: 100 } as const;

export const fingerprintOf = (i: number) => createHash('sha256').update(`artifact-${i}`).digest('hex');
export const commitOf = (trail: number) => createHash('sha1').update(`commit-${trail}`).digest('hex');
export const flowOf = (trail: number) => `flow-${trail % artifactSeed.flows}`;

export function seedArtifacts(file: string, trails: number, perTrail: number): void {
  seedDatabase(file, (db, org) => {
    db.transaction(() => {
      const flow = db.prepare(
        `insert into flows (organization_id, name, description, visibility, created_at, last_modified_at) values (?, ?, '', 'private', 1, 1)`,
      );
      const flowIds = Array.from({ length: artifactSeed.flows }, (_, i) => Number(flow.run(org, `flow-${i}`).lastInsertRowid));
      const trail = db.prepare(
        `insert into trails (flow_id, organization_id, name, description, commit_sha, created_at, last_modified_at) values (?, ?, ?, '', ?, ?, ?)`,
      );
      const artifact = db.prepare(
        `insert into artifacts (organization_id, flow_id, trail_id, fingerprint, filename, template_reference_name, git_commit, repo_name, build_url, commit_url, created_at)
         values (?, ?, ?, ?, ?, 'backend', ?, ?, 'https://ci.example/build', 'https://git.example/commit', ?)`,
      );
      for (let t = 0; t < trails; t++) {
        const flowId = flowIds[t % artifactSeed.flows]!;
        const commit = commitOf(t);
        const trailId = Number(trail.run(flowId, org, `trail-${t}`, commit, t, t).lastInsertRowid);
        for (let a = 0; a < perTrail; a++) {
          const i = t * perTrail + a;
          artifact.run(org, flowId, trailId, fingerprintOf(i), `app-${i}`, commit, `acme/repo-${t % 20}`, t + a / perTrail);
        }
      }
      const env = db.prepare(
        `insert into environments (organization_id, name, name_lower, type, description, include_scaling, tags, policies, included_environments, last_modified_at)
         values (?, ?, ?, 'K8S', '', 0, '{}', '[]', '[]', 1)`,
      );
      const snapshot = db.prepare(`insert into snapshots (environment_id, snapshot_index, artifacts, created_at) values (?, 1, '[]', 1)`);
      const event = db.prepare(
        `insert into environment_events (environment_id, snapshot_index, type, artifact_name, fingerprint, instances_before, instances_after, reported_at)
         values (?, 1, 'started', ?, ?, 0, 1, 1)`,
      );
      for (let e = 0; e < artifactSeed.environments; e++) {
        const envId = Number(env.run(org, `env-${e}`, `env-${e}`).lastInsertRowid);
        snapshot.run(envId);
        for (let k = 0; k < artifactSeed.runningPerEnvironment; k++) {
          const i = e * artifactSeed.runningPerEnvironment + k;
          event.run(envId, `app-${i}`, fingerprintOf(i));
        }
      }
    })();
    db.exec('analyze');
  });
}
