/** `trailproof token create | list | revoke | evidence`: API tokens, and what each one stored. */
import { parseArgs } from 'node:util';
import { createToken } from './auth.ts';
import { databaseOptions, isoTime, UsageError, withStore } from './cli-common.ts';
import { secondsPerUnit } from './time-units.ts';
import type { TokenEvidence } from './store/index.ts';

/** Runs the token subcommand named first in `args`. */
export async function token(args: string[]) {
  const [action, ...rest] = args;
  const subcommands: Record<string, (args: string[]) => Promise<void>> = { create: tokenCreate, list: tokenList, revoke: tokenRevoke, evidence: tokenEvidence };
  const run = subcommands[action ?? ''];
  if (!run) throw new UsageError(`unknown token command '${action ?? ''}'`);
  await run(rest);
}

async function tokenCreate(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' }, 'read-only': { type: 'boolean' }, description: { type: 'string' },
      'expires-in': { type: 'string' }, 'expires-at': { type: 'string' }, ...databaseOptions,
    },
  });
  if (!values.org) throw new UsageError('token create needs --org ORG');
  const org = values.org;
  const expiresAt = expiry(values['expires-in'], values['expires-at'], Date.now() / 1000);
  await withStore(values, async (store) => {
    const { token } = await createToken(store, { org, readOnly: values['read-only'] ?? false, description: values.description, ...(expiresAt === undefined ? {} : { expiresAt }) });
    process.stdout.write(token + '\n');
  });
}

const isoDateOrTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** When a new token expires (Unix seconds): `--expires-in 90d` (m, h, d or w) or `--expires-at` a date or time; undefined for never. */
function expiry(expiresIn: string | undefined, expiresAt: string | undefined, now: number): number | undefined {
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresIn !== undefined) {
    const match = /^([1-9][0-9]{0,5})([mhdw])$/.exec(expiresIn);
    if (!match) throw new UsageError(`--expires-in takes a number and a unit (m, h, d or w), such as 90d, not '${expiresIn}'`);
    return now + Number(match[1]) * secondsPerUnit.get(match[2]!)!;
  }
  if (expiresAt === undefined) return undefined;
  // A date alone is the start of that day in UTC (as Date.parse reads it); a time needs its zone.
  const at = isoDateOrTime.test(expiresAt) && isCalendarDate(expiresAt.slice(0, 10)) ? Date.parse(expiresAt) / 1000 : NaN;
  if (!Number.isFinite(at)) throw new UsageError(`--expires-at takes a date or an ISO 8601 time with its zone, such as 2027-03-31 or 2027-03-31T18:00:00Z, not '${expiresAt}'`);
  if (at <= now) throw new UsageError(`--expires-at ${expiresAt} is not in the future`);
  return at;
}

/** `YYYY-MM-DD` names a day of the calendar (Date.parse takes 2027-02-30 for March 2nd). */
function isCalendarDate(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/**
 * Lists tokens (id, organisation, access, status, dates, description): never a secret, which is
 * not stored anyway. The status is `active`, `revoked` or `expired` (revoked wins).
 */
async function tokenList(args: string[]) {
  const { values } = parseArgs({ args, options: { org: { type: 'string' }, json: { type: 'boolean' }, ...databaseOptions } });
  const tokens = await withStore(values, (store) => store.listTokens(values.org));
  const now = Date.now() / 1000;
  const rows = tokens.map((t) => ({
    id: t.id, org: t.organization, access: t.readOnly ? 'read-only' : 'read-write',
    status: t.revokedAt !== null ? 'revoked' : t.expiresAt !== null && t.expiresAt <= now ? 'expired' : 'active',
    created_at: isoTime(t.createdAt), revoked_at: t.revokedAt === null ? null : isoTime(t.revokedAt),
    expires_at: t.expiresAt === null ? null : isoTime(t.expiresAt), description: t.description,
  }));
  if (values.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  process.stdout.write(['ID', 'ORG', 'ACCESS', 'STATUS', 'CREATED', 'REVOKED', 'EXPIRES', 'DESCRIPTION'].join('\t') + '\n');
  for (const r of rows) process.stdout.write([r.id, r.org, r.access, r.status, r.created_at, r.revoked_at ?? '-', r.expires_at ?? '-', r.description ?? ''].join('\t') + '\n');
}

/** The token id in `given`: the part after `tp_` of a whole token, or the id itself. */
const tokenIdOf = (given: string) => /^tp_([A-Za-z0-9]{16})(_|$)/.exec(given)?.[1] ?? given;

/** Revokes a token by its id (the part after `tp_`, or the whole token); it stops working at once. */
async function tokenRevoke(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: databaseOptions, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('token revoke needs one token id');
  const id = tokenIdOf(positionals[0]!);
  const revoked = await withStore(values, (store) => store.revokeToken(id, Date.now() / 1000));
  if (!revoked) throw new Error(`no active token with id '${id}'`);
  process.stderr.write(`trailproof: token ${id} revoked\n`);
}

/**
 * Lists what a token stored, oldest first: the trails it began (or began again), its
 * attestations, environment snapshots, approval requests and reviews. After a token leaked:
 * revoke it, then review these.
 */
async function tokenEvidence(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' }, ...databaseOptions }, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('token evidence needs one token id');
  const id = tokenIdOf(positionals[0]!);
  const found = await withStore(values, (store) => store.evidenceOfToken(id));
  if (!found) throw new Error(`no token with id '${id}'`);
  const rows = found.items.map((e) => ({ at: isoTime(e.at), org: found.organization, ...describeEvidence(e) }));
  if (values.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  process.stdout.write(['TIME', 'ORG', 'WHAT', 'WHERE', 'DETAIL'].join('\t') + '\n');
  for (const r of rows) process.stdout.write([r.at, r.org, r.what, r.where, r.detail].join('\t') + '\n');
}

/** One line of `token evidence`: what was stored, where, and what else says which one. */
function describeEvidence(e: TokenEvidence): { what: string; where: string; detail: string; [key: string]: unknown } {
  switch (e.kind) {
    case 'trail.begin':
      return { what: e.created ? 'began trail' : 'began trail again', where: `${e.flow}/${e.trail}`, detail: '-', flow: e.flow, trail: e.trail };
    case 'attestation':
      return {
        what: 'attestation', where: `${e.flow}/${e.trail}`, detail: `${e.name} (${e.type}, id ${e.attestationId})`,
        flow: e.flow, trail: e.trail, attestation_id: e.attestationId, attestation_name: e.name, attestation_type: e.type,
      };
    case 'snapshot':
      return { what: 'environment snapshot', where: e.environment, detail: `#${e.snapshotIndex}`, environment: e.environment, snapshot_index: e.snapshotIndex };
    case 'approval':
      return { what: 'approval request', where: `${e.flow} release ${e.releaseNumber}`, detail: '-', flow: e.flow, release_number: e.releaseNumber };
    case 'review':
      return {
        what: 'approval review', where: `${e.flow} release ${e.releaseNumber}`, detail: `${e.state} by ${e.approvedBy}`,
        flow: e.flow, release_number: e.releaseNumber, state: e.state, approved_by: e.approvedBy,
      };
  }
}

