import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { openStore } from '@trailproof/server';
import { testBackend } from '@trailproof/server/testing';
import { createDatabase, runProcess } from '../../../../test/support/processes.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const cli = 'packages/server/src/cli/main.ts';
const tokenLine = /^tp_[A-Za-z0-9]{16}_[A-Za-z0-9_-]{43}\n$/;

/** The environment of a child: nothing inherited that would choose its database, port or host. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, TRAILPROOF_DB: _t, PORT: _p, HOST: _h, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** Runs `trailproof ARGS` to completion without blocking this process (its keep-alive connections stay current). */
function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProcess(process.execPath, ['--import', 'tsx', cli, ...args], { cwd: root, env: childEnv(env) });
}

interface Serving {
  child: ChildProcess;
  url: string;
  /** stdout lines so far, each one JSON object. */
  lines: Array<Record<string, any>>;
  exited: Promise<number | null>;
}

/**
 * Starts `serve`: through tsx's loader by default, as the tests run everything; `installed` runs
 * the package's `bin/trailproof.js` as an installed command would, with no loader given to node.
 */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}, how: 'tsx' | 'installed' = 'tsx'): Promise<Serving> {
  const command = how === 'tsx' ? ['--import', 'tsx', cli, 'serve', ...args] : ['packages/server/bin/trailproof.js', 'serve', ...args];
  const { NODE_OPTIONS: _n, ...environment } = childEnv(env);
  const child = spawn(process.execPath, command, { cwd: root, env: how === 'tsx' ? childEnv(env) : environment, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, any>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(JSON.parse(line));
      if (lines.length === 1) {
        expect(lines[0]!.msg, 'first line').to.equal('listening');
        resolve(lines[0]!.url);
      }
    });
  });
  return { child, url, lines, exited };
}

const call = async (base: string, token: string, method: string, path: string, form?: Record<string, string>) => {
  let body: FormData | undefined;
  if (form) {
    body = new FormData();
    for (const [k, v] of Object.entries(form)) body.append(k, v);
  }
  const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}` }, body });
  return { status: res.status, body: await res.json() };
};

/**
 * One keep-alive connection, by hand: `ask` sends a GET and resolves with the status line and
 * headers of its answer; `closed` resolves with the time the server closed the connection.
 */
function keepAliveConnection(base: string, token: string) {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let received = '';
  let isClosed = false;
  let check: (() => void) | undefined;
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
    check?.();
  });
  socket.on('error', () => {}); // a write into a connection the server closed: `ask` rejects instead
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      check?.();
      resolve(Date.now());
    }),
  );
  const ask = (path: string) =>
    new Promise<{ status: string; headers: string[]; answeredAt: number }>((resolve, reject) => {
      received = '';
      check = () => {
        const [head, body] = received.split('\r\n\r\n');
        const length = /^content-length: (\d+)$/im.exec(head ?? '');
        if (body !== undefined && length && Buffer.byteLength(body) >= Number(length[1])) {
          const [status, ...headers] = head!.split('\r\n');
          resolve({ status: status!, headers: headers.map((h) => h.toLowerCase()), answeredAt: Date.now() });
        } else if (isClosed) reject(new Error(`the server closed the connection before answering ${path}`));
      };
      if (isClosed) return check();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    });
  return { ask, closed, close: () => socket.destroy() };
}

describe('the trailproof command', function () {
  this.timeout(60_000);
  let dir = '';
  /** The database of the test: a SQLite file, or on the PostgreSQL pass a new PostgreSQL database. */
  let db = '';
  /** A SQLite file, for what only concerns files (TRAILPROOF_DB). */
  let file = '';
  let dropDatabase = async () => {};
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-cli-'));
    file = join(dir, 'evidence.db');
    db = file;
    if (testBackend === 'postgres') {
      const created = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, 'cli');
      db = created.url;
      dropDatabase = created.drop;
    }
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sleep(100); // killed servers release their connections before the database is dropped
    await dropDatabase();
    dropDatabase = async () => {};
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (args: string[], env?: NodeJS.ProcessEnv, how?: 'tsx' | 'installed') => {
    const s = await serve(args, env, how);
    children.push(s.child);
    return s;
  };

  it('token create prints the token alone; --read-only makes one that cannot write', async () => {
    const created = await run(['token', 'create', '--org', 'acme', '--database', db]);
    expect(created.status, created.stderr).to.equal(0);
    expect(created.stdout).to.match(tokenLine);
    const readOnly = await run(['token', 'create', '--org', 'acme', '--read-only', '--database', db]);
    expect(readOnly.stdout).to.match(tokenLine);
    expect(readOnly.stdout).not.to.equal(created.stdout);
    const [writer, reader] = [created.stdout.trim(), readOnly.stdout.trim()];

    const s = await start(['--database', db, '--port', '0']);
    const trail = { data_json: JSON.stringify({ name: 'build-1' }) };
    const refused = await call(s.url, reader, 'PUT', '/api/v2/trails/acme/app', trail);
    expect(refused).to.deep.equal({ status: 403, body: { message: 'This token is read-only' } });
    expect((await call(s.url, reader, 'GET', '/api/v2/environments/acme')).status).to.equal(200);
    expect((await call(s.url, writer, 'PUT', '/api/v2/trails/acme/app', trail)).status).to.equal(201);
  });

  it('the installed command (bin/trailproof.js, node without a loader) serves and stores attestations', async () => {
    // The attestation is stored by SQLite's writer thread, which must load the TypeScript sources by itself.
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0', '--host', '127.0.0.1'], {}, 'installed');
    expect((await call(s.url, token, 'PUT', '/api/v2/trails/acme/app', { data_json: JSON.stringify({ name: 't1' }) })).status).to.equal(201);
    const attested = await call(s.url, token, 'POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
      data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.1 }] }),
    });
    expect(attested).to.deep.equal({ status: 201, body: "junit attestation 'unit' was added to trail 't1'" });
    const trail = (await call(s.url, token, 'GET', '/api/v2/trails/acme/app/t1')).body as {
      compliance_status: { attestations_statuses: Array<{ attestation_name: string }> };
    };
    expect(trail.compliance_status.attestations_statuses.map((a) => a.attestation_name)).to.deep.equal(['unit']);
  });

  it('serve logs listening first, then one JSON line per request without the token', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0', '--host', '127.0.0.1']);
    const version = (JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as { version: string }).version;
    const database = testBackend === 'postgres' ? `${new URL(db).host}${new URL(db).pathname}` : db;
    expect(s.lines[0]).to.include({ msg: 'listening', version, database, backend: testBackend, url: s.url });
    expect(s.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.url).not.to.match(/:0$/);

    expect((await call(s.url, token, 'GET', '/api/v2/environments/acme?per_page=5')).status).to.equal(200);
    await sleep(200);
    const requests = s.lines.filter((l) => l.msg === 'request');
    expect(requests).to.have.length(1);
    expect(requests[0]).to.include({ level: 'info', method: 'GET', path: '/api/v2/environments/acme', status: 200 });
    expect(requests[0]!.duration_ms).to.be.a('number').and.to.be.at.least(0);
    expect(requests[0]!.time).to.be.a('string');
    const log = s.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(log).not.to.contain(token);
    expect(log).not.to.contain(token.slice(20));
    expect(log).not.to.contain('per_page'); // the path is logged without the query

    expect((await call(s.url, 'tp_nope', 'GET', '/api/v2/environments/acme')).status).to.equal(401);
    await sleep(200);
    expect(s.lines.filter((l) => l.msg === 'request').map((l) => l.status)).to.deep.equal([200, 401]);
  });

  it('serve names PostgreSQL by host and database on its first line, never the password', async function () {
    if (testBackend !== 'postgres') return this.skip(); // the test cluster trusts every password
    const url = new URL(db);
    url.username = 'postgres';
    url.password = 'pa@ss/Xyzzy';
    const s = await start(['--database', url.toString(), '--port', '0'], { LOG_LEVEL: 'debug' });
    expect(s.lines[0]).to.include({ msg: 'listening', backend: 'postgres', database: `${url.host}${url.pathname}` });
    expect((await fetch(`${s.url}/readyz`)).status).to.equal(200);
    await sleep(200);
    const log = s.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(log).to.contain('store call');
    expect(log).not.to.contain('pa@ss').and.not.to.contain('pa%40ss').and.not.to.contain('Xyzzy');
  });

  it('serve refuses an unknown LOG_LEVEL with its usage (exit 2)', async () => {
    const result = await run(['serve', '--database', db, '--port', '0'], { LOG_LEVEL: 'verbose' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain("LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not 'verbose'");
  });

  it('on SIGTERM finishes the request in flight, exits 0 and leaves the database consistent', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0']);
    expect((await call(s.url, token, 'PUT', '/api/v2/trails/acme/app', { data_json: JSON.stringify({ name: 'build-1' }) })).status).to.equal(201);

    // A 9MB attachment sent slowly: SIGTERM arrives after the headers and the first megabyte.
    const attachment = Buffer.alloc(9 * 1024 * 1024, 7);
    const boundary = 'trailproofboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${JSON.stringify({ attestation_name: 'slow', junit_results: [] })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="attachment_file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, attachment, tail]);
    const url = new URL(`${s.url}/api/v2/attestations/acme/app/trail/build-1/junit`);
    const answer = new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c) => (text += c))
            .on('end', () => resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      void (async () => {
        const chunk = 1024 * 1024;
        req.write(body.subarray(0, chunk));
        await sleep(1000);
        s.child.kill('SIGTERM');
        for (let at = chunk; at < body.length; at += chunk) {
          await sleep(100);
          req.write(body.subarray(at, at + chunk));
        }
        req.end();
      })();
    });
    const response = await answer;
    expect(response.status, response.body).to.equal(201);
    expect(JSON.parse(response.body)).to.contain('slow');
    // the answer ends the keep-alive connection, so the process need not wait for it to idle out
    expect(response.connection).to.equal('close');
    const answeredAt = Date.now();
    expect(await s.exited).to.equal(0);
    expect(Date.now() - answeredAt).to.be.below(3000);
    const messages = s.lines.map((l) => l.msg);
    expect(messages).to.include.members(['shutting down', 'stopped']);
    expect(messages.indexOf('stopped')).to.be.above(messages.lastIndexOf('request'));
    expect(s.lines.find((l) => l.msg === 'shutting down')!.signal).to.equal('SIGTERM');

    const store = await openStore(db);
    try {
      const org = (await store.findOrganization('acme'))!;
      const trail = (await store.findTrail(Number(org.id), 'app', 'build-1'))!;
      const [attestation] = await store.listAttestations(trail.id);
      expect(attestation!.name).to.equal('slow');
      expect(attestation!.attachmentSha256).to.equal(createHash('sha256').update(attachment).digest('hex'));
      expect(Buffer.from((await store.getBlob(attestation!.attachmentSha256!))!.content).equals(attachment)).to.equal(true);
      const chain = await store.verifyChain(Number(org.id), 'acme');
      expect(chain.ok).to.equal(true);
      expect(chain.records).to.equal(2); // the trail begin and the attestation
    } finally {
      await store.close();
    }
  });

  it('serves the console at /ui with sign-ins lasting TRAILPROOF_CONSOLE_SESSION_TTL; --no-console leaves it out', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0'], { TRAILPROOF_CONSOLE_SESSION_TTL: '30m' });
    const signIn = await fetch(`${s.url}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    expect(signIn.status).to.equal(303);
    const expires = Date.parse(/expires=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!);
    expect(expires - Date.now()).to.be.within(29 * 60_000, 30 * 60_000 + 1000);
    const bare = await start(['--database', db, '--port', '0', '--no-console']);
    const root = await fetch(`${bare.url}/ui/sign-in`);
    expect([root.status, root.headers.get('content-type')]).to.deep.equal([404, 'application/json; charset=utf-8']);
    const bad = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_CONSOLE_SESSION_TTL: 'forever' });
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain("TRAILPROOF_CONSOLE_SESSION_TTL must be a number and a unit (m, h, d or w), such as 12h, not 'forever'");
  });

  it('refuses a bad --port with exit code 2 and the usage', async () => {
    for (const args of [['--port', 'abc'], ['--port=-1']]) {
      const result = await run(['serve', '--db', file, ...args]);
      expect(result.status, args.join(' ')).to.equal(2);
      expect(result.stderr).to.contain('--port must be a port number').and.to.contain('Usage:');
      expect(result.stdout).to.equal('');
    }
    const unknown = await run(['serve', '--db', file, '--colour', 'red']);
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.contain('Usage:');
  });

  it('answers -h and --help for every command and subcommand on stdout, --version with the package version, and an unknown flag with the usage and exit 2', async function () {
    this.timeout(300_000);
    /** Runs each command line, three at a time. */
    const runAll = async (lines: string[][]) => {
      const out: Array<{ args: string[]; result: Awaited<ReturnType<typeof run>> }> = [];
      for (let i = 0; i < lines.length; i += 3)
        out.push(...(await Promise.all(lines.slice(i, i + 3).map(async (args) => ({ args, result: await run(args) })))));
      return out;
    };
    // Each command line, and what its help must name: its flags, environment variables and defaults.
    const helps: Array<[string[], string[]]> = [
      [[], ['trailproof serve', 'trailproof token create', 'trailproof token evidence', 'trailproof backup', 'trailproof verify', '--version']],
      [
        ['serve'],
        [
          '--port N',
          '--host H',
          '--workers N',
          'TRAILPROOF_WORKERS',
          '--db FILE',
          'default 8080',
          'PORT',
          'TRAILPROOF_SQLITE_MAX_SIZE',
          'TRAILPROOF_PG_MAX_CONNECTIONS',
          'TRAILPROOF_MAX_CONNECTIONS',
          'default 10000',
        ],
      ],
      [['token'], ['trailproof token create', 'trailproof token list', 'trailproof token revoke', 'trailproof token evidence']],
      [
        ['token', 'create'],
        ['--org ORG', '--read-only', '--description TEXT', '--expires-in', '--expires-at', 'TRAILPROOF_DB', 'DATABASE_URL'],
      ],
      [
        ['token', 'list'],
        ['--org ORG', '--json', '--database URL'],
      ],
      [
        ['token', 'revoke'],
        ['ID', '--db FILE'],
      ],
      [
        ['token', 'evidence'],
        ['ID', '--json'],
      ],
      [['backup'], ['OUT.db', '--db FILE', 'integrity check']],
      [['verify'], ['--org ORG', '--json', 'Exit status']],
    ];
    const helpLines = [
      ...helps.map(([command]) => [...command, '--help']),
      ['serve', '-h', '--db', file],
      ['token', 'create', '-h'],
      ['verify', '--db', file, '-h'],
    ];
    for (const { args, result } of await runAll(helpLines)) {
      const command = args.filter((a) => !a.startsWith('-') && a !== file);
      expect(result.status, args.join(' ')).to.equal(0);
      expect(result.stderr, args.join(' ')).to.equal('');
      expect(result.stdout, args.join(' '))
        .to.contain('Usage:')
        .and.to.contain(`trailproof ${command.join(' ')}`.trim());
      for (const named of helps.find(([c]) => c.join(' ') === command.join(' '))![1])
        expect(result.stdout, `${args.join(' ')} names ${named}`).to.contain(named);
    }
    expect(existsSync(file), 'help opens no database').to.equal(false);

    const { version } = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as { version: string };
    for (const { result } of await runAll([['--version'], ['-v'], ['version']])) {
      expect(result.status).to.equal(0);
      expect(result.stdout).to.equal(`${version}\n`);
    }

    const commands = [['serve'], ['token', 'create'], ['token', 'list'], ['token', 'revoke'], ['token', 'evidence'], ['backup'], ['verify']];
    for (const { args, result } of await runAll(commands.map((command) => [...command, '--bogus', '--db', file]))) {
      const command = args.slice(0, args.indexOf('--bogus'));
      expect(result.status, command.join(' ')).to.equal(2);
      expect(result.stdout, command.join(' ')).to.equal('');
      expect(result.stderr, command.join(' '))
        .to.contain("Unknown option '--bogus'")
        .and.to.contain('Usage:')
        .and.to.contain(`trailproof ${command.join(' ')}`);
    }
    for (const { args, result } of await runAll([['--bogus'], ['token', 'frobnicate'], ['token']])) {
      expect(result.status, args.join(' ')).to.equal(2);
      expect(result.stderr, args.join(' ')).to.contain('Usage:');
    }
    expect(existsSync(file), 'a refused command opens no database').to.equal(false);
  });

  it('refuses a DATABASE_URL that is not a PostgreSQL URL instead of opening a file of that name', async () => {
    const result = await run(['token', 'create', '--org', 'acme'], { DATABASE_URL: 'mysql://root:secret@localhost/app' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain('DATABASE_URL takes a postgres:// URL').and.to.contain('root:***@').and.not.to.contain('secret');
    expect(existsSync(join(root, 'mysql:'))).to.equal(false);
  });

  it('takes the database from TRAILPROOF_DB and the port from PORT; flags win', async () => {
    const token = (await run(['token', 'create', '--org', 'acme'], { TRAILPROOF_DB: file })).stdout.trim();
    expect(token + '\n').to.match(tokenLine);
    const s = await start([], { TRAILPROOF_DB: file, PORT: '0' });
    expect(s.lines[0]).to.include({ msg: 'listening', database: file });
    expect((await call(s.url, token, 'GET', '/api/v2/environments/acme')).status).to.equal(200);

    const other = join(dir, 'other.db');
    const flagged = await start(['--db', other, '--port', '0'], { TRAILPROOF_DB: file, PORT: '1' });
    expect(flagged.lines[0]).to.include({ database: other });
    expect((await call(flagged.url, token, 'GET', '/api/v2/environments/acme')).status).to.equal(401); // the token lives in the other file

    // TRAILPROOF_DB wins over the generic DATABASE_URL (here one that could not be reached)
    const both = await start(['--port', '0'], { TRAILPROOF_DB: file, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(both.lines[0]).to.include({ database: file, backend: 'sqlite' });

    const badPort = await run(['serve'], { TRAILPROOF_DB: file, PORT: 'eighty' });
    expect(badPort.status).to.equal(2);
    expect(badPort.stderr).to.contain("'eighty'");
  });

  it('keeps an idle keep-alive connection open 65 s, longer than the proxies in front; TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS sets it', async function () {
    this.timeout(90_000);
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0']);
    const connection = keepAliveConnection(s.url, token);
    try {
      const first = await connection.ask('/api/v2/environments/acme');
      expect(first.status).to.equal('HTTP/1.1 200 OK');
      expect(first.headers).to.include.members(['connection: keep-alive', 'keep-alive: timeout=65']);
      // Idle past the 5 s that closed such connections before (and a client that had blocked its
      // event loop as long then wrote into a closed connection: EPIPE).
      await sleep(6_000);
      expect((await connection.ask('/api/v2/environments/acme')).status, 'the same connection, 6 s idle').to.equal('HTTP/1.1 200 OK');
    } finally {
      connection.close();
    }

    const short = await start(['--database', db, '--port', '0'], { TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS: '1000' });
    const shortLived = keepAliveConnection(short.url, token);
    const answer = await shortLived.ask('/api/v2/environments/acme');
    expect(answer.headers).to.include('keep-alive: timeout=1');
    expect((await shortLived.closed) - answer.answeredAt).to.be.within(900, 3_000);

    for (const value of ['500', 'soon']) {
      const result = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS: value });
      expect(result.status, value).to.equal(2);
      expect(result.stderr).to.contain(`TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS must be a whole number from 1000 to 3600000, not '${value}'`);
    }
  });

  it('closes connections beyond TRAILPROOF_MAX_CONNECTIONS as they arrive, idle ones counted, and logs it; a closed one makes room', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0'], { TRAILPROOF_MAX_CONNECTIONS: '2' });
    const path = '/api/v2/environments/acme';
    const first = keepAliveConnection(s.url, token);
    expect((await first.ask(path)).status).to.equal('HTTP/1.1 200 OK');
    const second = keepAliveConnection(s.url, token);
    expect((await second.ask(path)).status).to.equal('HTTP/1.1 200 OK');
    // Both idle now, and still open: a third is closed without an answer.
    const third = keepAliveConnection(s.url, token);
    const openedAt = Date.now();
    try {
      expect((await third.closed) - openedAt, 'closed as it arrives').to.be.below(5_000);
      let refusal: unknown;
      await third.ask(path).catch((error: unknown) => (refusal = error));
      expect(String(refusal)).to.contain('the server closed the connection before answering');
      const refusals = () => s.lines.filter((l) => l.msg === 'connections refused').map(({ limit, refused }) => ({ limit, refused }));
      for (let waited = 0; waited < 2_000 && !refusals().length; waited += 50) await sleep(50); // the log line arrives through a pipe
      expect(refusals()).to.deep.equal([{ limit: 2, refused: 1 }]);

      first.close();
      await first.closed;
      let answered = '';
      for (let attempt = 0; attempt < 20 && !answered; attempt++) {
        // The server learns of the close a moment after this process made it.
        await sleep(100);
        const next = keepAliveConnection(s.url, token);
        answered = await next.ask(path).then(
          (a) => a.status,
          () => '',
        );
        next.close();
      }
      expect(answered, 'a connection once the first closed').to.equal('HTTP/1.1 200 OK');
    } finally {
      for (const connection of [first, second, third]) connection.close();
    }
    for (const value of ['0', 'many']) {
      const result = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_MAX_CONNECTIONS: value });
      expect(result.status, value).to.equal(2);
      expect(result.stderr).to.contain(`TRAILPROOF_MAX_CONNECTIONS must be a whole number from 1 to 1000000, not '${value}'`);
    }
  });

  it('caps a SQLite file at TRAILPROOF_SQLITE_MAX_SIZE: a write beyond it answers 507, and a bad size is refused', async function () {
    if (testBackend !== 'sqlite') return this.skip();
    const token = (await run(['token', 'create', '--org', 'acme', '--db', file])).stdout.trim();
    const s = await start(['--db', file, '--port', '0'], { TRAILPROOF_SQLITE_MAX_SIZE: '2MB' });
    expect((await call(s.url, token, 'PUT', '/api/v2/trails/acme/app', { data_json: JSON.stringify({ name: 't1' }) })).status).to.equal(201);
    const big = new FormData();
    big.append('data_json', JSON.stringify({ attestation_name: 'big', is_compliant: true }));
    big.append('attachment_file', new Blob(['x'.repeat(3 * 1024 * 1024)]), 'big.txt'); // over the 2MB cap, under the 10MB file limit
    const refused = await fetch(`${s.url}/api/v2/attestations/acme/app/trail/t1/generic`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: big,
    });
    expect(refused.status).to.equal(507);
    expect(((await refused.json()) as { message: string }).message).to.match(/^Insufficient storage/);
    const small = await call(s.url, token, 'POST', '/api/v2/attestations/acme/app/trail/t1/generic', {
      data_json: JSON.stringify({ attestation_name: 'small', is_compliant: true }),
    });
    expect(small.status, 'what fits is stored').to.equal(201);

    for (const size of ['12XB', '100KB']) {
      const result = await run(['serve', '--db', file], { TRAILPROOF_SQLITE_MAX_SIZE: size });
      expect(result.status, size).to.equal(2);
      expect(result.stderr).to.contain(`TRAILPROOF_SQLITE_MAX_SIZE must be a size of at least 1MB, as 500MB or 20GB, not '${size}'`);
    }
  });
});
