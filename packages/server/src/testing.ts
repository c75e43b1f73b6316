/**
 * Test support: a real server on loopback over a real database file, with tokens for two
 * organisations, and a small client. Used by this package's tests, the examples and the action.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import BetterSqlite3 from './store/sqlite/driver.ts';
import { sharedSchemas, type Operation } from '@trailproof/schema';
import { createToken } from './auth.ts';
import { silentLogger } from './logger.ts';
import type { Plugin } from './plugin.ts';
import { startServer, type ServerOptions } from './server.ts';
import { migrate, migrations } from './store/migrations.ts';
import { openSqliteWriter } from './store/sqlite/open.ts';
import pg from 'pg';
import { isPostgresUrl, openPostgresStore, openSqliteStore, type AttestationRow, type SqliteOptions, type Store } from './store/index.ts';

/** better-sqlite3 as the server loads it (13 on Node 22 and later, 12 on Node 20), for raw SQL in tests. */
export { BetterSqlite3 };
export { sqliteDriver } from './store/sqlite/driver.ts';

export interface TestServer {
  url: string;
  store: Store;
  /** Read-write token of organisation `acme`. */
  token: string;
  /** Read-only token of `acme`. */
  readToken: string;
  /** Read-write token of another organisation, `globex`. */
  otherToken: string;
  /** The SQLite database file ('' on PostgreSQL). */
  file: string;
  /** Which database the server runs on. */
  backend: 'sqlite' | 'postgres';
  /** The SQLite file or the PostgreSQL URL. */
  location: string;
  /** PostgreSQL only: the schema that holds this server's tables. */
  schema?: string;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** The attestations stored on a trail of `org` (`acme` by default), oldest first; throws when there is no such trail. */
  attestations(flow: string, trail: string, org?: string): Promise<AttestationRow[]>;
  /** Stops the server and closes its store, keeping the data (see `reopenTestStore`). */
  stop(): Promise<void>;
  /** Stops the server (if it runs) and removes the data. */
  close(): Promise<void>;
}

type FetchBody = NonNullable<NonNullable<Parameters<typeof fetch>[1]>['body']>;

export interface RequestOptions {
  /** Bearer token; the read-write `acme` token by default, `null` for none. */
  token?: string | null;
  /** Multipart body: strings become fields, `{ file, name }` become file parts. */
  form?: Record<string, string | { content: Uint8Array | string; name?: string; type?: string }>;
  json?: unknown;
  headers?: Record<string, string>;
  body?: FetchBody;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  bytes: Uint8Array;
}

/**
 * The database the tests run on: SQLite files by default; PostgreSQL when
 * `TRAILPROOF_TEST_DATABASE` is a `postgres://` URL (each store then gets a schema of its own, in a
 * database of the test process's own on that server).
 */
export const testBackend: 'sqlite' | 'postgres' = isPostgresUrl(process.env.TRAILPROOF_TEST_DATABASE ?? '') ? 'postgres' : 'sqlite';

let schemaCounter = 0;

let databaseOfProcess: Promise<string> | undefined;

/**
 * A PostgreSQL database of this process's own on the server `url` names (made on first use, kept
 * for the next run of a process with the same id), whose schemas are its test stores: a store's
 * migrations read the catalogue of every schema in their database, and a schema that another
 * process dropped meanwhile failed them ("schema ... does not exist") when test files ran at once.
 */
function processDatabase(url: string): Promise<string> {
  databaseOfProcess ??= (async () => {
    const name = `trailproof_tests_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (!rowCount) await admin.query(`create database "${name}"`);
    } finally {
      await admin.end();
    }
    const own = new URL(url);
    own.pathname = `/${name}`;
    return own.href;
  })();
  return databaseOfProcess;
}

let template: Promise<string> | undefined;

/**
 * A SQLite file with every migration applied and nothing else, made once per process: each test
 * store starts as a copy of it. Migrating a new file, every migration committed on its own, cost
 * CPU and disk waits per store, and the suite opens hundreds (bench/results/suite-parallel-2026-12-04.md). The store's own first start (its log's signing key, its origin) still happens on
 * each copy; migrations are tested on new files by migrations.test.ts and reopenTestStore.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trailproof-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'migrated.db');
    const { db, raw } = openSqliteWriter(file);
    try {
      await migrate(db, 'sqlite');
      raw.pragma('wal_checkpoint(TRUNCATE)');
      raw.pragma('journal_mode = DELETE');
    } finally {
      await db.destroy();
    }
    return file;
  })();
  return template;
}

/**
 * Opens a fresh, empty store for a test. `location` is what a server process would be given to
 * reach the same data (the SQLite file, or the PostgreSQL URL with its schema in `options`).
 * `cleanup` removes the data; call it after closing the store. `sqlite`: options for a SQLite store;
 * `directory`: where its file goes (the system's temporary folder by default).
 */
export async function openTestStore(
  options: { sqlite?: SqliteOptions; directory?: string } = {},
): Promise<{ store: Store; file: string; location: string; schema?: string; cleanup(): void | Promise<void> }> {
  if (testBackend === 'postgres') {
    const url = await processDatabase(process.env.TRAILPROOF_TEST_DATABASE!);
    const schema = `t_${process.pid}_${++schemaCounter}_${Date.now().toString(36)}`;
    const store = await openPostgresStore(url, { schema });
    const cleanup = async () => {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        await pool.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await pool.end();
      }
    };
    return { store, file: '', location: url, schema, cleanup };
  }
  const template = await migratedTemplate();
  const dir = mkdtempSync(join(options.directory ?? tmpdir(), 'trailproof-test-'));
  const file = join(dir, 'test.db');
  copyFileSync(template, file);
  const store = await openSqliteStore(file, options.sqlite);
  return { store, file, location: file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs SQL statements straight on the database of a test store (which the caller closed), then
 * opens a store on it again, applying pending migrations: for tests of what a migration does to
 * data kept before it (`drop table ...`, `delete from schema_migrations where name = ...`). On
 * PostgreSQL the statements run with the store's schema first on the search path.
 */
export async function reopenTestStore(opened: { location: string; schema?: string }, statements: readonly string[]): Promise<Store> {
  if (opened.schema === undefined) {
    const raw = new BetterSqlite3(opened.location);
    try {
      for (const statement of statements) raw.exec(statement);
    } finally {
      raw.close();
    }
    return openSqliteStore(opened.location);
  }
  const client = new pg.Client({ connectionString: opened.location });
  await client.connect();
  try {
    await client.query(`set search_path to "${opened.schema}"`);
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
  return openPostgresStore(opened.location, { schema: opened.schema });
}

/**
 * What undoes each migration that a test takes back (see `migrationsUndone`), per database kind.
 * A new migration adds its entry here, so that the tests of earlier ones keep working.
 */
const undoing: Record<string, { sqlite: readonly string[]; postgres: readonly string[] }> = {
  '0008_environment_counts': {
    sqlite: ['alter table organizations drop column environment_count'],
    postgres: ['alter table organizations drop column environment_count'],
  },
  '0009_environment_name_index': {
    sqlite: ['insert', 'update', 'delete'].map((on) => `drop trigger environment_names_${on}`).concat('drop table environment_names'),
    postgres: [],
  },
  '0010_token_notifications': { sqlite: [], postgres: ['drop trigger tokens_changed on tokens'] },
  '0011_deployment_hour_counts': { sqlite: ['drop table deployment_hour_counts'], postgres: ['drop table deployment_hour_counts'] },
  '0012_environment_events': { sqlite: ['drop table environment_events'], postgres: ['drop table environment_events'] },
  '0013_token_expiry': { sqlite: ['alter table tokens drop column expires_at'], postgres: ['alter table tokens drop column expires_at'] },
  '0014_evidence_provenance': {
    sqlite: ['alter table attestations drop column created_by_token', 'alter table trails drop column created_by_token'],
    postgres: ['alter table attestations drop column created_by_token', 'alter table trails drop column created_by_token'],
  },
  '0015_approval_snapshot_provenance': {
    sqlite: ['snapshots', 'reviews', 'approvals'].map((table) => `alter table ${table} drop column created_by_token`),
    postgres: ['snapshots', 'reviews', 'approvals'].map((table) => `alter table ${table} drop column created_by_token`),
  },
  '0016_console_sessions': {
    sqlite: ['drop index deployments_org_fingerprint', 'drop table console_sessions'],
    postgres: ['drop index deployments_org_fingerprint', 'drop table console_sessions'],
  },
  '0017_transparency_log': {
    sqlite: ['drop index evidence_log_ref', ...['log_subtrees', 'log_trees', 'log_checkpoints', 'log_signing'].map((table) => `drop table ${table}`)],
    postgres: ['drop index evidence_log_ref', ...['log_subtrees', 'log_trees', 'log_checkpoints', 'log_signing'].map((table) => `drop table ${table}`)],
  },
  '0018_environment_badges': { sqlite: ['drop table environment_badges'], postgres: ['drop table environment_badges'] },
  // Nothing to undo: applied again, it leaves a table already keyed by position as it is.
  '0019_log_subtree_positions': { sqlite: [], postgres: [] },
  '0020_junit_failed_cases': { sqlite: ['drop table junit_failed_cases'], postgres: ['drop table junit_failed_cases'] },
  '0021_trails_organization': {
    sqlite: ['drop index trails_org_created', 'alter table trails drop column organization_id'],
    postgres: ['drop index trails_org_created', 'alter table trails drop column organization_id'],
  },
  // The table's triggers and indexes go with it.
  '0022_artifacts': { sqlite: ['drop table artifacts'], postgres: ['drop table artifacts'] },
  '0023_custom_attestation_types': {
    sqlite: ['drop table custom_attestation_type_versions', 'drop table custom_attestation_types'],
    postgres: ['drop table custom_attestation_type_versions', 'drop table custom_attestation_types'],
  },
  '0024_policies': {
    sqlite: ['drop table policy_versions', 'drop table policies', 'alter table flows drop column tags'],
    postgres: ['drop table policy_versions', 'drop table policies', 'alter table flows drop column tags'],
  },
  '0025_artifact_reads': {
    sqlite: ['drop index environment_events_fingerprint', 'drop index artifacts_org_created'],
    postgres: ['drop index environment_events_fingerprint', 'drop index artifacts_org_created'],
  },
  '0026_verdicts': { sqlite: ['drop table verdicts'], postgres: ['drop table verdicts'] },
  '0027_allowlists_controls': {
    sqlite: ['drop table allowlist_entries', 'drop table controls', 'alter table snapshots drop column compliant'],
    postgres: ['drop table allowlist_entries', 'drop table controls', 'alter table snapshots drop column compliant'],
  },
  // The table's indexes go with it.
  '0028_console_identities': { sqlite: ['drop table console_identity_sessions'], postgres: ['drop table console_identity_sessions'] },
  '0029_artifact_names': { sqlite: ['drop index artifacts_org_filename'], postgres: ['drop index artifacts_org_filename'] },
  '0030_trail_names': { sqlite: ['drop index trails_org_name'], postgres: ['drop index trails_org_name'] },
  '0031_trail_counts': {
    sqlite: [
      'drop index trails_org_commit',
      'drop trigger trails_counted',
      'alter table flows drop column trail_count',
      'alter table organizations drop column trail_count',
    ],
    postgres: [
      'drop index trails_org_commit',
      'drop trigger trails_counted on trails',
      'drop function trailproof_trail_counted',
      'alter table flows drop column trail_count',
      'alter table organizations drop column trail_count',
    ],
  },
};

/**
 * The statements (for `reopenTestStore`) that take a database back to where it was before
 * migration `name`: that one and every later one undone, the latest first, and forgotten by
 * `schema_migrations`, so that reopening applies them again to the data as it is.
 */
export function migrationsUndone(name: string, backend: 'sqlite' | 'postgres' = testBackend): string[] {
  if (!(name in migrations)) throw new Error(`migrationsUndone: no migration '${name}'`);
  const names = Object.keys(migrations).filter((m) => m >= name);
  const missing = names.filter((m) => !undoing[m]);
  if (missing.length) throw new Error(`migrationsUndone: no undo for ${missing.join(', ')}`);
  return [...names.reverse().flatMap((m) => undoing[m]![backend]), `delete from schema_migrations where name in (${names.map((m) => `'${m}'`).join(', ')})`];
}

/** Settings of the test server's HTTP side (limits, time-outs, a logger to read). */
export type TestServerOptions = Omit<ServerOptions, 'store' | 'port' | 'host' | 'plugins' | 'handleSignals'>;

/** Starts a server on 127.0.0.1 with an ephemeral port (`sqlite`, `directory`: as for `openTestStore`; `server`: its HTTP settings). */
export async function startTestServer(
  options: { plugins?: readonly Plugin<any>[]; sqlite?: SqliteOptions; directory?: string; server?: TestServerOptions } = {},
): Promise<TestServer> {
  const { store, file, location, schema, cleanup } = await openTestStore({ sqlite: options.sqlite, directory: options.directory });
  const token = (await createToken(store, { org: 'acme' })).token;
  const readToken = (await createToken(store, { org: 'acme', readOnly: true })).token;
  const otherToken = (await createToken(store, { org: 'globex' })).token;
  const running = await startServer({
    store,
    logger: silentLogger,
    port: 0,
    host: '127.0.0.1',
    ...(options.plugins ? { plugins: options.plugins } : {}),
    ...options.server,
  });

  const request = async (method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...o.headers };
    const bearer = o.token === undefined ? token : o.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    let body: FetchBody | undefined = o.body;
    if (o.form) {
      const form = new FormData();
      for (const [name, value] of Object.entries(o.form)) {
        if (typeof value === 'string') form.append(name, value);
        // The DOM's Blob type (in the type check since the console's JSX) takes no SharedArrayBuffer views.
        else
          form.append(
            name,
            new Blob([value.content as Uint8Array<ArrayBuffer> | string], { type: value.type ?? 'application/octet-stream' }),
            value.name ?? name,
          );
      }
      body = form;
    } else if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    }
    const response = await fetch(running.url + path, { method, headers, body });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed, bytes };
  };

  const attestations = async (flow: string, trail: string, org = 'acme') => {
    const organization = await store.findOrganization(org);
    const found = organization && (await store.findTrail(Number(organization.id), flow, trail));
    if (!found) throw new Error(`no trail ${org}/${flow}/${trail}`);
    return store.listAttestations(found.id);
  };

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= running.close(1000));
  return {
    url: running.url,
    store,
    token,
    readToken,
    otherToken,
    file,
    backend: testBackend,
    location,
    ...(schema ? { schema } : {}),
    request,
    attestations,
    stop,
    close: async () => {
      await stop();
      await cleanup();
    },
  };
}

/**
 * Polls `check` every `intervalMs` until it holds or `ms` have passed; resolves with whether it
 * held. For what happens a moment later by design (a notification, a database coming back).
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, ms: number, intervalMs = 10): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

let contractAjv: Ajv | undefined;
/**
 * Asserts that `body` is exactly what `operation` promises for `status` (no missing, extra or
 * mistyped fields). Throws with the validator's errors otherwise.
 */
export function assertMatchesContract(operation: Operation, status: number, body: unknown): void {
  const response = operation.responses[status];
  if (!response) throw new Error(`${operation.id} does not declare a ${status} response`);
  if (!contractAjv) {
    contractAjv = new Ajv({ strict: false, allErrors: true });
    for (const schema of sharedSchemas) contractAjv.addSchema(schema);
  }
  for (const schema of operation.schemas ?? []) if (!contractAjv.getSchema(schema.$id!)) contractAjv.addSchema(schema);
  const id = response.schema.$id;
  const validate = id && contractAjv.getSchema(id) ? contractAjv.getSchema(id)! : contractAjv.compile(response.schema);
  if (!validate(body)) {
    throw new Error(`${operation.id} ${status} does not match the contract: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
  }
}
