/**
 * Controls (`kosli create control`, `get control`, `list controls`): an identifier per
 * organisation with a name and a description, named by `decision` attestations and by the
 * `for_control` rules of policies.
 */
import type { Db } from '../database.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

export interface ControlRecord {
  identifier: string;
  name: string;
  description: string | null;
  createdAt: number;
  createdBy: TokenRef | null;
}

export interface ControlInput {
  organizationId: number;
  identifier: string;
  name: string;
  description: string | null;
  createdBy: string | null;
  at: number;
}

/** Creates the control; false when the organisation has one of that identifier already. */
export async function insertControl(db: Db, c: ControlInput): Promise<boolean> {
  const inserted = await db
    .insertInto('controls')
    .values({
      organization_id: c.organizationId,
      identifier: c.identifier,
      name: c.name,
      description: c.description,
      created_by_token: c.createdBy,
      created_at: c.at,
    })
    .onConflict((o) => o.columns(['organization_id', 'identifier']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export interface ControlQuery {
  /** Part of the identifier or the name, any case. */
  search?: string;
  descending: boolean;
  offset: number;
  limit: number;
}

const controlsQuery = (db: Db, organizationId: number) =>
  db
    .selectFrom('controls as c')
    .leftJoin('tokens as t', 't.id', 'c.created_by_token')
    .select(['c.identifier', 'c.name', 'c.description', 'c.created_at', 'c.created_by_token', 't.description as token_description'])
    .where('c.organization_id', '=', organizationId);

const recordOf = (r: {
  identifier: string;
  name: string;
  description: string | null;
  created_at: number;
  created_by_token: string | null;
  token_description: string | null;
}): ControlRecord => ({
  identifier: r.identifier,
  name: r.name,
  description: r.description,
  createdAt: Number(r.created_at),
  createdBy: tokenRef(r.created_by_token, r.token_description),
});

/** One control by its identifier. */
export async function findControl(db: Db, organizationId: number, identifier: string): Promise<ControlRecord | undefined> {
  const row = await controlsQuery(db, organizationId).where('c.identifier', '=', identifier).executeTakeFirst();
  return row ? recordOf(row) : undefined;
}

/** A page of the organisation's controls by name (then identifier), and how many match. */
export async function listControls(db: Db, organizationId: number, q: ControlQuery): Promise<{ total: number; items: ControlRecord[] }> {
  const pattern = q.search ? `%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  const matching = <T extends ReturnType<typeof controlsQuery>>(query: T): T =>
    pattern === undefined
      ? query
      : (query.where((eb) => eb.or([eb(eb.fn('lower', ['c.identifier']), 'like', pattern), eb(eb.fn('lower', ['c.name']), 'like', pattern)])) as T);
  const direction = q.descending ? 'desc' : 'asc';
  const [rows, counted] = await Promise.all([
    matching(controlsQuery(db, organizationId)).orderBy('c.name', direction).orderBy('c.identifier', direction).limit(q.limit).offset(q.offset).execute(),
    matching(controlsQuery(db, organizationId))
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { total: Number(counted.total), items: rows.map(recordOf) };
}

export const reads = { findControl, listControls };
export const writes = { insertControl };
