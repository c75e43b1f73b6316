/**
 * Verdicts of `assert artifact` (migration 0026), recorded as evidence: once per distinct verdict
 * text in an organisation, so that asserting again what was judged already (the same evidence,
 * policy versions and outcome) reads its record instead of writing another.
 */
import { insertChunks, type Db } from '../database.ts';
import { leafMemory } from '../leaf-memory.ts';
import { inTransaction } from '../transactions.ts';
import { appendEvidenceBatch, byToken, digestColumnsOf, sha256 } from './chain.ts';
import { logIndexesOf } from './log.ts';

export interface VerdictInput {
  organizationId: number;
  fingerprint: string;
  /** The verdict's canonical JSON (domain/verdict.ts): what the record says. */
  verdict: string;
  /** The text's SHA-256 (hex), when the caller remembers it with the text; computed otherwise. */
  sha256?: string;
  compliant: boolean;
  createdBy: string | null;
  at: number;
}

/** Leaves of verdicts found, by organisation and text digest (leaf-memory.ts): a verdict's row and its record are append-only. */
const known = leafMemory(10_000);

/** The leaf of the verdict with this text in the organisation, if it was recorded. */
export async function findVerdictLeaf(db: Db, organizationId: number, verdict: string): Promise<number | undefined> {
  return (await leavesOfDigests(db, organizationId, [sha256(verdict)]))[0];
}

/** The leaf of each verdict recorded in the organisation, by its text's SHA-256 (undefined where none), in a fixed number of statements however many. */
export function findVerdictLeaves(db: Db, organizationId: number, digests: readonly string[]): Promise<(number | undefined)[]> {
  return leavesOfDigests(db, organizationId, digests);
}

async function leavesOfDigests(db: Db, organizationId: number, digests: readonly string[]): Promise<(number | undefined)[]> {
  const found = new Map<string, number>();
  for (const d of digests) {
    const leaf = known.get(db, `${organizationId}:${d}`);
    if (leaf !== undefined) found.set(d, leaf);
  }
  const wanted = [...new Set(digests.filter((d) => !found.has(d)))];
  const rows = [];
  for (const chunk of insertChunks(wanted))
    rows.push(
      ...(await db
        .selectFrom('verdicts')
        .select(['id', 'verdict_sha256'])
        .where('organization_id', '=', organizationId)
        .where('verdict_sha256', 'in', chunk)
        .execute()),
    );
  const leaves = rows.length
    ? await logIndexesOf(
        db,
        organizationId,
        'verdicts',
        rows.map((r) => Number(r.id)),
      )
    : new Map<number, number>();
  for (const r of rows) {
    const leaf = leaves.get(Number(r.id));
    if (leaf === undefined) continue;
    found.set(r.verdict_sha256, leaf);
    known.remember(db, `${organizationId}:${r.verdict_sha256}`, leaf);
  }
  return digests.map((d) => found.get(d));
}

/** Records the verdict with its chain record, unless its text is recorded already; answers its leaf either way. */
export async function recordVerdict(db: Db, { organizationId, ...v }: VerdictInput): Promise<number> {
  return (await recordVerdicts(db, organizationId, [v]))[0]!;
}

/**
 * Records each of the organisation's verdicts not recorded yet (one row and chain record per
 * distinct text), in a fixed number of statements however many there are, and answers every
 * verdict's leaf in order: a snapshot of a thousand artifacts judged as before writes nothing.
 */
export function recordVerdicts(db: Db, organizationId: number, inputs: readonly Omit<VerdictInput, 'organizationId'>[]): Promise<number[]> {
  const digests = inputs.map((v) => v.sha256 ?? sha256(v.verdict));
  return inTransaction(db, async (trx) => {
    const leaves = await leavesOfDigests(trx, organizationId, digests);
    const fresh = new Map<string, Omit<VerdictInput, 'organizationId'>>();
    inputs.forEach((v, i) => leaves[i] === undefined && fresh.set(digests[i]!, v));
    const rows = [];
    for (const chunk of insertChunks([...fresh]))
      rows.push(
        ...(await trx
          .insertInto('verdicts')
          .values(
            chunk.map(([digest, v]) => ({
              organization_id: organizationId,
              fingerprint: v.fingerprint,
              verdict: v.verdict,
              verdict_sha256: digest,
              compliant: v.compliant ? 1 : 0,
              created_by_token: v.createdBy,
              created_at: v.at,
            })),
          )
          .onConflict((c) => c.columns(['organization_id', 'verdict_sha256']).doNothing())
          .returning(digestColumnsOf('verdicts'))
          .execute()),
      );
    const appended = rows.length
      ? await appendEvidenceBatch(
          trx,
          rows.map((row) => ({
            organizationId,
            type: 'verdict' as const,
            at: Number(row.created_at),
            ref: { table: 'verdicts' as const, id: Number(row.id) },
            row,
            data: {
              fingerprint: row.fingerprint,
              compliant: Boolean(Number(row.compliant)),
              verdict_sha256: row.verdict_sha256,
              ...byToken(row.created_by_token),
            },
          })),
        )
      : [];
    const made = new Map(rows.map((row, i) => [row.verdict_sha256, appended[i]!.seq - 1]));
    const answer = digests.map((d, i) => leaves[i] ?? made.get(d));
    // A text another writer recorded meanwhile (its insert here did nothing) is read as recorded.
    if (answer.every((leaf) => leaf !== undefined)) return answer as number[];
    const late = await leavesOfDigests(trx, organizationId, digests);
    return answer.map((leaf, i) => leaf ?? late[i]!);
  });
}

/** A recorded verdict as the console shows it: its row, its leaf in the log and its text. */
export interface VerdictRow {
  id: number;
  fingerprint: string;
  compliant: boolean;
  createdAt: number;
  /** The canonical JSON that was recorded (domain/verdict.ts). */
  verdict: string;
  logIndex: number | null;
}

/** A page of the organisation's verdicts, newest first (of one fingerprint when given), with how many there are. */
export async function listVerdicts(
  db: Db,
  organizationId: number,
  o: { fingerprint?: string; offset: number; limit: number },
): Promise<{ total: number; items: VerdictRow[] }> {
  let query = db.selectFrom('verdicts').where('organization_id', '=', organizationId);
  if (o.fingerprint !== undefined) query = query.where('fingerprint', '=', o.fingerprint);
  const [count, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
    query.select(['id', 'fingerprint', 'compliant', 'created_at', 'verdict']).orderBy('id', 'desc').offset(o.offset).limit(o.limit).execute(),
  ]);
  return { total: Number(count?.n ?? 0), items: await withLeaves(db, organizationId, rows) };
}

/** One verdict of the organisation by its id, undefined when there is none. */
export async function findVerdict(db: Db, organizationId: number, id: number): Promise<VerdictRow | undefined> {
  const rows = await db
    .selectFrom('verdicts')
    .select(['id', 'fingerprint', 'compliant', 'created_at', 'verdict'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
  return (await withLeaves(db, organizationId, rows))[0];
}

type StoredVerdict = { id: number | string; fingerprint: string; compliant: number | string; created_at: number | string; verdict: string };

async function withLeaves(db: Db, organizationId: number, rows: StoredVerdict[]): Promise<VerdictRow[]> {
  const leaves = await logIndexesOf(
    db,
    organizationId,
    'verdicts',
    rows.map((r) => Number(r.id)),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    fingerprint: r.fingerprint,
    compliant: Boolean(Number(r.compliant)),
    createdAt: Number(r.created_at),
    verdict: r.verdict,
    logIndex: leaves.get(Number(r.id)) ?? null,
  }));
}

export const reads = { findVerdictLeaf, findVerdictLeaves, listVerdicts, findVerdict };
export const writes = { recordVerdict, recordVerdicts };
