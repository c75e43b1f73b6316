/** Tags of flows and environments (PATCH /tags): a JSON object of text values on the row. */
import type { Db } from '../database.ts';

export interface TagChange {
  set: Record<string, string>;
  remove: readonly string[];
}

const applied = (current: Record<string, unknown>, change: TagChange): Record<string, string> => {
  const tags = Object.fromEntries(Object.entries({ ...current, ...change.set }).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  for (const key of change.remove) delete tags[key];
  return tags;
};

/** Changes a flow's tags; false when the organisation has no such flow. */
export async function changeFlowTags(db: Db, organizationId: number, name: string, change: TagChange, at: number): Promise<boolean> {
  const row = await db.selectFrom('flows').select(['id', 'tags']).where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  if (!row) return false;
  const tags = applied(JSON.parse(row.tags), change);
  await db
    .updateTable('flows')
    .set({ tags: JSON.stringify(tags), last_modified_at: at })
    .where('id', '=', Number(row.id))
    .execute();
  return true;
}

/** Changes an environment's tags (the row's object and the rows the list filters on); false when there is no such environment. */
export async function changeEnvironmentTags(db: Db, organizationId: number, name: string, change: TagChange, at: number): Promise<boolean> {
  const row = await db
    .selectFrom('environments')
    .select(['id', 'tags'])
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row) return false;
  const id = Number(row.id);
  const tags = applied(JSON.parse(row.tags), change);
  await db
    .updateTable('environments')
    .set({ tags: JSON.stringify(tags), last_modified_at: at })
    .where('id', '=', id)
    .execute();
  await db.deleteFrom('environment_tags').where('environment_id', '=', id).execute();
  const entries = Object.entries(tags);
  if (entries.length)
    await db
      .insertInto('environment_tags')
      .values(entries.map(([key, value]) => ({ environment_id: id, key, value })))
      .execute();
  return true;
}

export const reads = {};
export const writes = { changeFlowTags, changeEnvironmentTags };
