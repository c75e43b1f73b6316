/**
 * `trailproof export`: an organisation's audit package, from the database (opened only to read:
 * SQLite read-only as `verify` opens it, PostgreSQL in read-only sessions) or from a server's API
 * with a read token. Written as a stream to a new file, removed again if the export fails.
 */
import { createWriteStream, existsSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kysely } from 'kysely';
import { exportPackage } from '../audit/export-package.ts';
import { requireSelection } from '../audit/export-selection.ts';
import type { Selection } from '../audit/package-format.ts';
import { storeAuditLog } from '../audit/store-log.ts';
import { openToRead } from './database.ts';
import { databaseEnvironment, databaseFlags, databaseLocation, databaseOptions, defineCommand, existingPostgresDatabase, UsageError } from './common.ts';
import { logOptionsFromEnvironment } from './transparency-log.ts';
import type { Database } from '../store/database.ts';
import { createStore, isPostgresUrl, type Store } from '../store/index.ts';
import { openPostgres } from '../store/postgres/open.ts';
import { sqliteDialect } from '../store/sqlite/open.ts';
import { parseSignerKey } from '../transparency/index.ts';

export const exportCommand = defineCommand({
  name: 'export',
  synopsis: '--org ORG [--flow F [--trail T]] [--since TIME] [--until TIME] -o FILE.tar.gz [--db FILE | --database URL | --server URL --token TOKEN]',
  summary: [
    "Writes an audit package of the organisation's evidence (or one flow's, one trail's, a time range's): the",
    'evidence as the API shows it with its attachments, the log leaves that vouch for it, an inclusion proof',
    'of each against the latest signed checkpoint, the checkpoint, the verifier key and a README. Check it',
    'offline with `trailproof verify-package`. From the database (only read), or from a server with --server.',
  ].join('\n'),
  options: {
    org: { type: 'string' },
    flow: { type: 'string' },
    trail: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    output: { type: 'string', short: 'o' },
    server: { type: 'string' },
    token: { type: 'string' },
    ...databaseOptions,
  },
  flags: [
    ['--org ORG', 'the organisation (required)'],
    ['--flow F', 'only the evidence of this flow (snapshots are left out: environments belong to no flow)'],
    ['--trail T', 'only this trail of --flow (its begins and attestations)'],
    ['--since TIME', 'only evidence stored at or after TIME: an ISO 8601 date or time (UTC unless it says), or Unix seconds'],
    ['--until TIME', 'only evidence stored at or before TIME (a date alone: up to its end)'],
    ['-o, --output FILE', 'the package to write: a new file (required)'],
    ...databaseFlags,
    ['--server URL', "fetch the package from this server's API instead of reading a database"],
    ['--token TOKEN', 'with --server: a token of ORG, a read token will do (default TRAILPROOF_API_TOKEN)'],
  ],
  environment: [
    ...databaseEnvironment,
    ['TRAILPROOF_API_TOKEN', 'the token for --server'],
    ['TRAILPROOF_SIGNING_KEY', "the server's signer key, when it signs with one given this way (its verifier key goes in the package)"],
  ],
  async run({ values }) {
    if (!values.org) throw new UsageError('--org ORG is required');
    if (!values.output) throw new UsageError('-o FILE.tar.gz is required');
    if (values.trail !== undefined && values.flow === undefined) throw new UsageError('--trail needs --flow');
    if (values.server !== undefined && (values.db !== undefined || values.database !== undefined))
      throw new UsageError('give --server or a database, not both');
    const selection: Selection = JSON.parse(
      JSON.stringify({ flow: values.flow, trail: values.trail, since: time(values.since, 'since'), until: time(values.until, 'until') }),
    );
    if (existsSync(values.output)) throw new UsageError(`${values.output} exists already; choose a new file`);
    const out = createWriteStream(values.output, { flags: 'wx' });
    try {
      const written =
        values.server !== undefined
          ? await fromServer(values.server, values.token ?? process.env.TRAILPROOF_API_TOKEN, values.org, selection, out)
          : await fromDatabase(values, values.org, selection, out);
      process.stderr.write(`trailproof: wrote ${values.output}${written ? ` (${written.records} records, ${written.attachments} attachments)` : ''}\n`);
    } catch (error) {
      out.destroy();
      rmSync(values.output, { force: true });
      throw error;
    }
  },
});

/** An ISO 8601 date or time, or Unix seconds, as Unix seconds; a date alone as `until` means its last second. */
function time(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(dateOnly || /[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(ms)) throw new UsageError(`--${flag} takes an ISO 8601 date or time (2026-01-31, 2026-01-31T12:00:00Z) or Unix seconds, not '${value}'`);
  return ms / 1000 + (dateOnly && flag === 'until' ? 86_400 - 0.001 : 0);
}

async function fromDatabase(values: { db?: string; database?: string }, org: string, selection: Selection, out: NodeJS.WritableStream) {
  const location = databaseLocation(values);
  const work = async (store: Store) => {
    const organization = await store.findOrganization(org);
    if (!organization) throw new Error(`no organisation '${org}'`);
    const signerKey = logOptionsFromEnvironment().signerKey;
    const verifierKey = signerKey ? parseSignerKey(signerKey).verifierKey : await store.logVerifierKey();
    if (!verifierKey) throw new Error('the database keeps no signing key (the server signs with TRAILPROOF_SIGNING_KEY): set it for this command too');
    await requireSelection(store, org, Number(organization.id), selection);
    const log = await storeAuditLog(store, Number(organization.id), verifierKey);
    if (!log) throw new Error(`the log of '${org}' has no signed checkpoint yet (a running server makes one within a second of a write)`);
    return exportPackage(store, log, out as never, { organization: org, organizationId: Number(organization.id), selection, apiBase: '/api/v2' });
  };
  if (isPostgresUrl(location)) {
    // Not the full store: opening it would start the log's checkpointer, which signs (and may make a key) as the server does.
    await existingPostgresDatabase(location);
    const { db, pool } = openPostgres(location, { maxConnections: 1, applicationName: 'trailproof export' });
    pool.on('connect', (client) => void client.query('set default_transaction_read_only = on'));
    const store = createStore(db, 'postgres');
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }
  const opened = openToRead(location, { current: true, copyIfUnreadable: true });
  const store = createStore(new Kysely<Database>({ dialect: sqliteDialect(opened.raw) }), 'sqlite');
  try {
    return await work(store);
  } finally {
    await store.close();
    opened.close();
  }
}

async function fromServer(server: string, token: string | undefined, org: string, selection: Selection, out: NodeJS.WritableStream): Promise<undefined> {
  if (!token) throw new UsageError('--server needs --token TOKEN (or TRAILPROOF_API_TOKEN)');
  const query = new URLSearchParams(Object.entries(selection).map(([k, v]): [string, string] => [k, String(v)]));
  let url: URL;
  try {
    url = new URL(`${server.replace(/\/+$/, '').replace(/\/api\/v2$/, '')}/api/v2/log/${encodeURIComponent(org)}/export?${query}`);
  } catch {
    throw new UsageError(`--server takes a URL, not '${server}'`);
  }
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw new Error(`${url.origin} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  await pipeline(Readable.fromWeb(response.body as never), out);
  return undefined;
}
