// @database
/** The trailproof command's commands, flags and environment: token create, help and version, refused flags and values, TRAILPROOF_DB and PORT. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { call, commandFixture, root, run } from '../../../../test/support/cli-command.ts';

const tokenLine = /^tp_[A-Za-z0-9]{16}_[A-Za-z0-9_-]{43}\n$/;

describe('the trailproof command', function () {
  this.timeout(60_000);
  let dir = '';
  let db = '';
  let file = '';
  const start = commandFixture((place) => ({ dir, db, file } = place));

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
});
