/** Organisations: created on first use (`trailproof token create`), found by name, never renamed or deleted. */
import type { Db } from '../database.ts';

export interface OrganizationRow {
  id: number;
  name: string;
}

export async function ensureOrganization(db: Db, name: string, at: number): Promise<OrganizationRow> {
  await db
    .insertInto('organizations')
    .values({ name, created_at: at })
    .onConflict((c) => c.column('name').doNothing())
    .execute();
  return db.selectFrom('organizations').select(['id', 'name']).where('name', '=', name).executeTakeFirstOrThrow();
}

export async function listOrganizations(db: Db): Promise<OrganizationRow[]> {
  return (await db.selectFrom('organizations').select(['id', 'name']).orderBy('name').execute()).map((r) => ({ id: Number(r.id), name: r.name }));
}

export function findOrganization(db: Db, name: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').select(['id', 'name']).where('name', '=', name).executeTakeFirst();
}

export const reads = { findOrganization, listOrganizations };
export const writes = { ensureOrganization };
