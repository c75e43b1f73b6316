/**
 * Environment policies: a policy by name, its versions (append-only, each chained and in the
 * transparency log, so a verdict can name the version it read), and the environments using it.
 */
import type { Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { appendEvidence, byToken, sha256 } from './chain.ts';

export interface PolicyVersionRecord {
  version: number;
  comment: string;
  timestamp: number;
  created_by: string;
  policy_yaml: string;
  sha256: string;
}

export interface PolicyRecord {
  name: string;
  description: string;
  type: string;
  created_at: number;
  consuming_envs: string[];
  versions: PolicyVersionRecord[];
}

export interface PolicyVersionInput {
  organizationId: number;
  name: string;
  /** null keeps the description (or '' on create). */
  description: string | null;
  type: string;
  comment: string;
  yaml: string;
  createdBy: string | null;
  at: number;
}

/** Creates the policy or adds a version to it, with the version's chain record; says which and the version's number. */
export function putPolicyVersion(db: Db, p: PolicyVersionInput): Promise<{ created: boolean; version: number; sha256: string }> {
  return inTransaction(db, async (trx) => {
    const inserted = await trx
      .insertInto('policies')
      .values({ organization_id: p.organizationId, name: p.name, description: p.description ?? '', type: p.type, created_at: p.at })
      .onConflict((c) => c.columns(['organization_id', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    const policy = await trx
      .selectFrom('policies')
      .select('id')
      .where('organization_id', '=', p.organizationId)
      .where('name', '=', p.name)
      .executeTakeFirstOrThrow();
    const policyId = Number(policy.id);
    if (!inserted && p.description !== null) await trx.updateTable('policies').set({ description: p.description }).where('id', '=', policyId).execute();
    const last = await trx
      .selectFrom('policy_versions')
      .select((eb) => eb.fn.max('version').as('v'))
      .where('policy_id', '=', policyId)
      .executeTakeFirst();
    const version = Number(last?.v ?? 0) + 1;
    const digest = sha256(p.yaml);
    const row = await trx
      .insertInto('policy_versions')
      .values({ policy_id: policyId, version, comment: p.comment, policy_yaml: p.yaml, sha256: digest, created_by_token: p.createdBy, created_at: p.at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await appendEvidence(trx, {
      organizationId: p.organizationId,
      type: 'policy.version',
      at: p.at,
      ref: { table: 'policy_versions', id: Number(row.id) },
      data: { policy: p.name, version, sha256: digest, ...byToken(p.createdBy) },
    });
    return { created: inserted !== undefined, version, sha256: digest };
  });
}

/** The organisation's policies (all, or those named), by name, each with its versions oldest first. */
export async function findPolicies(db: Db, organizationId: number, names?: readonly string[]): Promise<PolicyRecord[]> {
  if (names && !names.length) return [];
  let query = db.selectFrom('policies').select(['id', 'name', 'description', 'type', 'created_at']).where('organization_id', '=', organizationId);
  if (names) query = query.where('name', 'in', [...names]);
  const policies = await query.orderBy('name').execute();
  if (!policies.length) return [];
  const versions = await db
    .selectFrom('policy_versions')
    .select(['policy_id', 'version', 'comment', 'policy_yaml', 'sha256', 'created_by_token', 'created_at'])
    .where(
      'policy_id',
      'in',
      policies.map((p) => Number(p.id)),
    )
    .orderBy('policy_id')
    .orderBy('version')
    .execute();
  const consuming = await environmentsUsingPolicies(db, organizationId);
  return policies.map((p) => ({
    name: p.name,
    description: p.description,
    type: p.type,
    created_at: Number(p.created_at),
    consuming_envs: consuming.get(p.name) ?? [],
    versions: versions
      .filter((v) => Number(v.policy_id) === Number(p.id))
      .map((v) => ({
        version: Number(v.version),
        comment: v.comment,
        timestamp: Number(v.created_at),
        created_by: v.created_by_token ?? '',
        policy_yaml: v.policy_yaml,
        sha256: v.sha256,
      })),
  }));
}

/** Per policy name, the environments it is attached to (environments keep their policies' names). */
async function environmentsUsingPolicies(db: Db, organizationId: number): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('environments')
    .select(['name', 'policies'])
    .where('organization_id', '=', organizationId)
    .where('policies', '!=', '[]')
    .orderBy('name')
    .execute();
  const out = new Map<string, string[]>();
  for (const row of rows) for (const policy of JSON.parse(row.policies) as string[]) out.set(policy, [...(out.get(policy) ?? []), row.name]);
  return out;
}

/** Sets the environment's attached policies, and its state when judged again by them (`state`; undefined keeps it). */
export async function setEnvironmentPolicies(db: Db, environmentId: number, policies: readonly string[], at: number, state?: boolean): Promise<void> {
  await db
    .updateTable('environments')
    .set({ policies: JSON.stringify(policies), last_modified_at: at, ...(state === undefined ? {} : { state: state ? 1 : 0 }) })
    .where('id', '=', environmentId)
    .execute();
}

export const reads = { findPolicies };
export const writes = { putPolicyVersion, setEnvironmentPolicies };
