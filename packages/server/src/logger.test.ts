// @database
import { expect } from 'chai';
import { createLogger, type LoggerLevel } from '@trailproof/server';
import { loggerLevelOf } from './logger.ts';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { databaseName, redacted } from './cli/common.ts';

/** A pino logger at `level` whose lines are kept, parsed. */
function keptLogger(level: LoggerLevel) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level, destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { logger, lines };
}

describe('the logger (pino)', () => {
  it('honours its level: debug lines only at debug, nothing when silent', () => {
    const info = keptLogger('info');
    info.logger.debug({ msg: 'detail' });
    info.logger.info({ msg: 'news' });
    expect(info.lines.map((l) => l.msg)).to.deep.equal(['news']);

    const debug = keptLogger('debug');
    debug.logger.debug({ msg: 'detail' });
    expect(debug.lines).to.have.length(1);
    expect(debug.lines[0]).to.include({ level: 'debug', msg: 'detail' });

    const silent = keptLogger('silent');
    silent.logger.error({ msg: 'trouble' });
    expect(silent.lines).to.deep.equal([]);
  });

  it('LOG_LEVEL: info when unset or empty, any pino level by name, anything else refused', () => {
    expect(loggerLevelOf(undefined)).to.equal('info');
    expect(loggerLevelOf('')).to.equal('info');
    expect(loggerLevelOf(' DEBUG ')).to.equal('debug');
    expect(loggerLevelOf('silent')).to.equal('silent');
    expect(() => loggerLevelOf('verbose')).to.throw(RangeError, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not 'verbose'/);
  });

  it('names PostgreSQL by host and database, and redacts a password holding an @', () => {
    expect(databaseName('postgres://app:s3cr%40t@db.internal:5433/evidence?sslmode=require')).to.equal('db.internal:5433/evidence');
    expect(databaseName('postgresql:///evidence?host=/var/run/postgresql')).to.equal('/var/run/postgresql/evidence');
    expect(databaseName('/srv/trailproof.db')).to.equal('/srv/trailproof.db');
    expect(redacted('postgres://app:p@ss@db/evidence')).to.equal('postgres://app:***@db/evidence');
  });
});

describe('the request lines', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('one line per request: level, ISO time, method, path without the query, status, duration, request id; no token, pid or host', async () => {
    const { logger, lines } = keptLogger('info');
    server = await startTestServer({ server: { logger } });
    const res = await server.request('GET', '/api/v2/environments/acme?per_page=5', { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).to.equal(200);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).to.have.length(1);
    const line = requests[0]!;
    expect(Object.keys(line).sort()).to.deep.equal(['duration_ms', 'level', 'method', 'msg', 'path', 'request_id', 'status', 'time']);
    expect(line).to.include({ level: 'info', method: 'GET', path: '/api/v2/environments/acme', status: 200, request_id: 'req-123' });
    expect(new Date(line.time as string).toISOString()).to.equal(line.time);
    expect(line.duration_ms).to.be.a('number').and.at.least(0);
    expect(JSON.stringify(lines)).not.to.contain(server.token.slice(20));
    expect(
      lines.some((l) => l.msg === 'store call'),
      'no store calls at info',
    ).to.equal(false);
  });

  it('at debug, each store call of a request: its name, duration and the request id', async () => {
    const { logger, lines } = keptLogger('debug');
    server = await startTestServer({ server: { logger } });
    expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' }, headers: { 'x-request-id': 'req-flow' } })).status).to.be.oneOf([
      200, 201,
    ]);
    expect((await server.request('GET', '/api/v2/environments/acme', { headers: { 'x-request-id': 'req-list' } })).status).to.equal(200);
    const calls = lines.filter((l) => l.msg === 'store call');
    const of = (id: string) => calls.filter((l) => l.request_id === id).map((l) => l.call);
    expect(of('req-flow')).to.include('findToken');
    expect(calls.filter((l) => l.request_id === 'req-flow' && l.in_transaction).length, 'calls inside the transaction').to.be.greaterThan(0);
    expect(of('req-list')).to.include.members(['findToken', 'listEnvironments']);
    for (const call of calls) {
      expect(call.level).to.equal('debug');
      expect(call.duration_ms).to.be.a('number').and.at.least(0);
    }
    // Each request's line comes after its store calls.
    const requestLine = lines.findIndex((l) => l.msg === 'request' && l.request_id === 'req-list');
    expect(lines.findIndex((l) => l.msg === 'store call' && l.request_id === 'req-list')).to.be.lessThan(requestLine);
  });

  it("at debug, the console's and the badges' store calls too: they use the store the API's routes use", async () => {
    const { logger, lines } = keptLogger('debug');
    server = await startTestServer({ server: { logger } });
    const signedIn = await fetch(`${server.url}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'req-sign-in' },
      body: new URLSearchParams({ token: server.readToken }),
    });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${server.url}/ui/acme`, { headers: { cookie, 'x-request-id': 'req-page' } })).status).to.equal(200);
    const badge = await fetch(`${server.url}/badges/acme/flows/app.svg`, { headers: { 'x-request-id': 'req-badge' } });
    await badge.arrayBuffer();
    const of = (id: string) => lines.filter((l) => l.msg === 'store call' && l.request_id === id).map((l) => l.call);
    expect(of('req-sign-in'), 'sign-in checks the token in the store').to.include('findToken');
    expect(of('req-page'), 'the page reads through the logged store').to.not.be.empty;
    expect(of('req-badge'), 'the badge reads through the logged store').to.not.be.empty;
  });
});
