/** What the badges read (an environment's state and whether its badge is public) and the opt-in that makes one public. */
import type { Db } from '../database.ts';

/** The table of migration 0018. */
interface EnvironmentBadgesTable {
  environment_id: number;
  made_public_at: number;
}

const withBadges = (db: Db) => db.withTables<{ environment_badges: EnvironmentBadgesTable }>();

export interface EnvironmentBadgeRow {
  /** Anyone may fetch the badge (opted in with `trailproof badge public`). */
  public: boolean;
  /** Compliant at its latest snapshot; null before its first report. */
  state: boolean | null;
}

/** An environment's state and badge setting, by organisation id and name. */
export async function findEnvironmentBadge(db: Db, organizationId: number, name: string): Promise<EnvironmentBadgeRow | undefined> {
  const row = await withBadges(db)
    .selectFrom('environments')
    .leftJoin('environment_badges', 'environment_badges.environment_id', 'environments.id')
    .select(['environments.state', 'environment_badges.environment_id as badge'])
    .where('environments.organization_id', '=', organizationId)
    .where('environments.name', '=', name)
    .executeTakeFirst();
  return row ? { public: row.badge !== null, state: row.state === null ? null : Number(row.state) === 1 } : undefined;
}

/** Makes an environment's badge public or private again; false when the environment does not exist. */
export async function setEnvironmentBadgePublic(db: Db, organizationId: number, name: string, isPublic: boolean, at: number): Promise<boolean> {
  const environment = await db
    .selectFrom('environments')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!environment) return false;
  const badges = withBadges(db);
  if (!isPublic) await badges.deleteFrom('environment_badges').where('environment_id', '=', Number(environment.id)).execute();
  else {
    await badges
      .insertInto('environment_badges')
      .values({ environment_id: Number(environment.id), made_public_at: at })
      .onConflict((c) => c.column('environment_id').doNothing())
      .execute();
  }
  return true;
}

export const reads = { findEnvironmentBadge };
export const writes = { setEnvironmentBadgePublic };
