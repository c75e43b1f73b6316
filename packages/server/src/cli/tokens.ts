/** `trailproof token create | list | revoke | evidence`: API tokens, and what each one stored. */
import { createToken } from '../auth.ts';
import { commandGroup, databaseEnvironment, databaseFlags, databaseOptions, defineCommand, isoTime, UsageError, withStore } from './common.ts';
import { secondsPerUnit } from '../support/time-units.ts';
import type { TokenEvidence } from '../store/types.ts';

/**
 * `org` when the API's paths can reach it (the contract's own rule for an organisation in a path);
 * otherwise a UsageError (an organisation named `acme ` or `../etc` could never be used). The
 * contract loads here only: it costs every other command a second of start-up under tsx.
 */
async function reachableOrg(org: string): Promise<string> {
  const { limits, NamePattern } = await import('@trailproof/schema');
  if (org.length <= limits.name && new RegExp(NamePattern).test(org)) return org;
  const shown = JSON.stringify(org.length > 60 ? `${org.slice(0, 60)}...` : org);
  throw new UsageError(
    `--org takes a name the API's paths take (at most ${limits.name} characters matching ${NamePattern}), not ${shown}${org.length > 60 ? ` (${org.length} characters)` : ''}`,
  );
}

const tokenCreate = defineCommand({
  name: 'token create',
  synopsis: '--org ORG [--read-only] [--description TEXT] [--expires-in 90d | --expires-at DATE] [--db FILE | --database URL]',
  summary: [
    'Creates an API token for the organisation ORG (which is created with its first token) and prints it,',
    'once, on stdout: the database keeps only a hash of it. Creates the database when there is none yet.',
  ].join('\n'),
  options: {
    org: { type: 'string' },
    'read-only': { type: 'boolean' },
    description: { type: 'string' },
    'expires-in': { type: 'string' },
    'expires-at': { type: 'string' },
    ...databaseOptions,
  },
  flags: [
    ['--org ORG', "the organisation (required): a name the API's paths take, as in /api/v2/environments/ORG"],
    ['--read-only', 'a token that reads but cannot write (read-write by default)'],
    ['--description TEXT', 'a note shown by token list (what the token is for)'],
    ['--expires-in 90d', 'stops working after this long: a number and m, h, d or w (never by default)'],
    ['--expires-at DATE', 'stops working at this date (UTC) or ISO 8601 time with its zone'],
    ...databaseFlags,
  ],
  environment: databaseEnvironment,
  async run({ values }) {
    if (!values.org) throw new UsageError('token create needs --org ORG');
    const org = await reachableOrg(values.org);
    const expiresAt = expiry(values['expires-in'], values['expires-at'], Date.now() / 1000);
    await withStore(values, async (store) => {
      const { token } = await createToken(store, {
        org,
        readOnly: values['read-only'] ?? false,
        description: values.description,
        ...(expiresAt === undefined ? {} : { expiresAt }),
      });
      process.stdout.write(token + '\n');
    });
  },
});

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
  if (!Number.isFinite(at))
    throw new UsageError(`--expires-at takes a date or an ISO 8601 time with its zone, such as 2027-03-31 or 2027-03-31T18:00:00Z, not '${expiresAt}'`);
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
const tokenList = defineCommand({
  name: 'token list',
  synopsis: '[--org ORG] [--json] [--db FILE | --database URL]',
  summary: 'Lists tokens (id, organisation, access, status, dates, description), never a token itself: none is stored.',
  options: { org: { type: 'string' }, json: { type: 'boolean' }, ...databaseOptions },
  flags: [['--org ORG', "only this organisation's tokens"], ['--json', 'as JSON (a table by default)'], ...databaseFlags],
  environment: databaseEnvironment,
  async run({ values }) {
    const tokens = await withStore(values, (store) => store.listTokens(values.org), { mustExist: true });
    const now = Date.now() / 1000;
    const rows = tokens.map((t) => ({
      id: t.id,
      org: t.organization,
      access: t.readOnly ? 'read-only' : 'read-write',
      status: t.revokedAt !== null ? 'revoked' : t.expiresAt !== null && t.expiresAt <= now ? 'expired' : 'active',
      created_at: isoTime(t.createdAt),
      revoked_at: t.revokedAt === null ? null : isoTime(t.revokedAt),
      expires_at: t.expiresAt === null ? null : isoTime(t.expiresAt),
      description: t.description,
    }));
    if (values.json) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return;
    }
    process.stdout.write(['ID', 'ORG', 'ACCESS', 'STATUS', 'CREATED', 'REVOKED', 'EXPIRES', 'DESCRIPTION'].join('\t') + '\n');
    for (const r of rows)
      process.stdout.write([r.id, r.org, r.access, r.status, r.created_at, r.revoked_at ?? '-', r.expires_at ?? '-', r.description ?? ''].join('\t') + '\n');
  },
});

/** The token id in `given`: the part after `tp_` of a whole token, or the id itself. */
const tokenIdOf = (given: string) => /^tp_([A-Za-z0-9]{16})(_|$)/.exec(given)?.[1] ?? given;

/** Revokes a token by its id (the part after `tp_`, or the whole token); it stops working at once. */
const tokenRevoke = defineCommand({
  name: 'token revoke',
  synopsis: 'ID [--db FILE | --database URL]',
  summary: 'Revokes a token: it stops working at once, also for a server that is running. The token stays listed as revoked.',
  options: databaseOptions,
  positionals: true,
  flags: [['ID', 'the token id (the part after tp_), or the whole token'], ...databaseFlags],
  environment: databaseEnvironment,
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('token revoke needs one token id');
    const id = tokenIdOf(positionals[0]!);
    const revoked = await withStore(values, (store) => store.revokeToken(id, Date.now() / 1000), { mustExist: true });
    if (!revoked) throw new Error(`no active token with id '${id}'`);
    process.stderr.write(`trailproof: token ${id} revoked\n`);
  },
});

/**
 * Lists what a token stored, oldest first: the trails it began (or began again), its
 * attestations, environment snapshots, approval requests and reviews. After a token leaked:
 * revoke it, then review these.
 */
const tokenEvidence = defineCommand({
  name: 'token evidence',
  synopsis: 'ID [--json] [--db FILE | --database URL]',
  summary: [
    'Lists what a token stored, oldest first: trails it began (or began again), attestations, environment',
    'snapshots, approval requests and reviews. After a token leaked: revoke it, then review these.',
  ].join('\n'),
  options: { json: { type: 'boolean' }, ...databaseOptions },
  positionals: true,
  flags: [['ID', 'the token id (the part after tp_), or the whole token'], ['--json', 'as JSON (a table by default)'], ...databaseFlags],
  environment: databaseEnvironment,
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('token evidence needs one token id');
    const id = tokenIdOf(positionals[0]!);
    const found = await withStore(values, (store) => store.evidenceOfToken(id), { mustExist: true });
    if (!found) throw new Error(`no token with id '${id}'`);
    const rows = found.items.map((e) => ({ at: isoTime(e.at), org: found.organization, ...describeEvidence(e) }));
    if (values.json) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return;
    }
    process.stdout.write(['TIME', 'ORG', 'WHAT', 'WHERE', 'DETAIL'].join('\t') + '\n');
    for (const r of rows) process.stdout.write([r.at, r.org, r.what, r.where, r.detail].join('\t') + '\n');
  },
});

/** One line of `token evidence`: what was stored, where, and what else says which one. */
function describeEvidence(e: TokenEvidence): { what: string; where: string; detail: string; [key: string]: unknown } {
  switch (e.kind) {
    case 'trail.begin':
      return { what: e.created ? 'began trail' : 'began trail again', where: `${e.flow}/${e.trail}`, detail: '-', flow: e.flow, trail: e.trail };
    case 'attestation':
      return {
        what: 'attestation',
        where: `${e.flow}/${e.trail}`,
        detail: `${e.name} (${e.type}, id ${e.attestationId})`,
        flow: e.flow,
        trail: e.trail,
        attestation_id: e.attestationId,
        attestation_name: e.name,
        attestation_type: e.type,
      };
    case 'artifact':
      return {
        what: 'artifact',
        where: `${e.flow}/${e.trail}`,
        detail: `${e.templateReferenceName} ${e.fingerprint} (id ${e.artifactId})`,
        flow: e.flow,
        trail: e.trail,
        artifact_id: e.artifactId,
        fingerprint: e.fingerprint,
      };
    case 'snapshot':
      return { what: 'environment snapshot', where: e.environment, detail: `#${e.snapshotIndex}`, environment: e.environment, snapshot_index: e.snapshotIndex };
    case 'approval':
      return { what: 'approval request', where: `${e.flow} release ${e.releaseNumber}`, detail: '-', flow: e.flow, release_number: e.releaseNumber };
    case 'review':
      return {
        what: 'approval review',
        where: `${e.flow} release ${e.releaseNumber}`,
        detail: `${e.state} by ${e.approvedBy}`,
        flow: e.flow,
        release_number: e.releaseNumber,
        state: e.state,
        approved_by: e.approvedBy,
      };
    case 'policy.version':
      return { what: 'policy version', where: e.policy, detail: `v${e.version}`, policy: e.policy, version: e.version };
    case 'verdict':
      return {
        what: 'assert verdict',
        where: e.fingerprint,
        detail: e.compliant ? 'compliant' : 'non-compliant',
        fingerprint: e.fingerprint,
        compliant: e.compliant,
      };
  }
}

/** `trailproof token ...`: the subcommands above. */
export const token = commandGroup('token', 'API tokens: create one for an organisation, list them, revoke one, list what one stored.', [
  tokenCreate,
  tokenList,
  tokenRevoke,
  tokenEvidence,
]);
