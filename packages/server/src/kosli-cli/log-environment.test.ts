// @database
/**
 * `kosli log environment` as CLI v2.38 sends it and reads the answer. Followed:
 * cmd/kosli/logEnvironment.go (`getEnvironmentEvents`: page, per_page, interval (always, empty by
 * default) and reverse always; repo_name once per non-empty --repo; start, end only when set;
 * start_ts, end_ts only when not 0, written by `strconv.FormatFloat(f, 'f', -1, 64)`; the query by
 * `url.Values.Encode`) and cmd/kosli/listSnapshots.go (`printEnvironmentEventsLogAsTable`: a JSON
 * array whose snapshot_index, artifact_name, sha256, description and pipeline are read unchecked).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { goDecodeProblems, goQuery, sendAsCli, type GoType } from './go-wire.ts';

const fingerprint = (name: string) => createHash('sha256').update(name).digest('hex');

/** One event as the table printer reads it (`reported_at` goes through formattedTimestamp: a number). */
const eventAsRead: GoType = {
  snapshot_index: 'float64',
  artifact_name: 'string',
  sha256: 'string',
  description: 'string',
  reported_at: 'float64',
  pipeline: 'string',
};

interface LogOptions {
  page?: number;
  pageLimit?: number;
  interval?: string;
  reverse?: boolean;
  repos?: string[];
  start?: string;
  end?: string;
  startTS?: number;
  endTS?: number;
}

/** The query `getEnvironmentEvents` builds from the flags (defaults: page 1, 15 a page). */
function logQuery(o: LogOptions = {}): string {
  const values: Array<[string, string]> = [
    ['page', String(o.page ?? 1)],
    ['per_page', String(o.pageLimit ?? 15)],
    ['interval', o.interval ?? ''],
    ['reverse', String(o.reverse ?? false)],
  ];
  for (const repo of o.repos ?? []) if (repo !== '') values.push(['repo_name', repo]);
  if (o.start) values.push(['start', o.start]);
  if (o.end) values.push(['end', o.end]);
  // FormatFloat(f, 'f', -1, 64): the shortest decimal, never an exponent.
  if (o.startTS) values.push(['start_ts', String(o.startTS)]);
  if (o.endTS) values.push(['end_ts', String(o.endTS)]);
  return goQuery(values);
}

describe('Kosli CLI wire format: log environment', () => {
  let server: TestServer;
  let reportedFrom: number;
  before(async () => {
    server = await startTestServer();
    const put = (path: string, payload: unknown) => sendAsCli(server.url, { method: 'PUT', path, token: server.token, payload });
    expect((await put('/api/v2/environments/acme', { name: 'prod', type: 'server', description: '', require_provenance: false })).status).to.equal(201);
    reportedFrom = Math.floor(Date.now() / 1000) - 1;
    // Three snapshots: api starts, web starts, api exits.
    const report = async (names: string[]) => {
      const artifacts = names.map((name) => ({ digests: { [`/srv/${name}.jar`]: fingerprint(name) }, creationTimestamp: 1_763_000_000 }));
      expect((await put('/api/v2/environments/acme/prod/report/server', { artifacts })).status).to.equal(201);
    };
    await report(['api']);
    await report(['api', 'web']);
    await report(['web']);
  });
  after(() => server.close());

  const log = async (options?: LogOptions) => {
    const answer = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/environments/acme/prod/events?${logQuery(options)}`, token: server.token });
    return answer;
  };
  /** The snapshots of the events answered, in the order answered. */
  const snapshotsOf = async (options?: LogOptions) => {
    const answer = await log(options);
    expect(answer.status, answer.text).to.equal(200);
    expect(goDecodeProblems(answer.json, [eventAsRead])).to.deep.equal([]);
    return [...new Set((answer.json as Array<{ snapshot_index: number }>).map((e) => e.snapshot_index))];
  };

  it('with no flags (interval= empty): every event, newest first, each readable by the table printer', async () => {
    expect(logQuery()).to.equal('interval=&page=1&per_page=15&reverse=false');
    expect(await snapshotsOf()).to.deep.equal([3, 2, 1]);
    const events = (await log()).json as Array<Record<string, unknown>>;
    expect(events.map((e) => `${e.snapshot_index} ${e.type} ${e.artifact_name}`)).to.deep.equal([
      '3 exited /srv/api.jar',
      '2 started /srv/web.jar',
      '1 started /srv/api.jar',
    ]);
    // No trail attested these artifacts: the deprecated flow name is empty, never null.
    expect(events.map((e) => e.pipeline)).to.deep.equal(['', '', '']);
  });

  it('--interval with snapshot expressions: NOW (the latest), N, ~N (N behind the latest), an end left out (NOW)', async () => {
    expect(await snapshotsOf({ interval: 'NOW' })).to.deep.equal([3]);
    expect(await snapshotsOf({ interval: '2' })).to.deep.equal([2]);
    expect(await snapshotsOf({ interval: '1..2' })).to.deep.equal([2, 1]);
    expect(await snapshotsOf({ interval: '~1..NOW' })).to.deep.equal([3, 2]);
    expect(await snapshotsOf({ interval: '~2..~1' })).to.deep.equal([2, 1]);
    expect(await snapshotsOf({ interval: '2..' })).to.deep.equal([3, 2]);
    expect(await snapshotsOf({ interval: '..' })).to.deep.equal([3]);
    expect(await snapshotsOf({ interval: '~0' })).to.deep.equal([3]);
    expect(await snapshotsOf({ interval: '1..2', reverse: true })).to.deep.equal([1, 2]);
  });

  it('--start and --end: snapshot indexes and time expressions', async () => {
    expect(await snapshotsOf({ start: '2' })).to.deep.equal([3, 2]);
    expect(await snapshotsOf({ end: '2' })).to.deep.equal([2, 1]);
    expect(await snapshotsOf({ start: '1hour', end: 'NOW' })).to.deep.equal([3, 2, 1]);
  });

  it('--start-ts and --end-ts: Unix seconds, whole or not', async () => {
    expect(await snapshotsOf({ startTS: 1_700_000_000, endTS: 1_700_086_400 })).to.deep.equal([]);
    expect(await snapshotsOf({ startTS: 1_700_000_000.5 })).to.deep.equal([3, 2, 1]);
    expect(await snapshotsOf({ startTS: reportedFrom, endTS: reportedFrom + 3600 })).to.deep.equal([3, 2, 1]);
    expect(await snapshotsOf({ startTS: reportedFrom + 3600 })).to.deep.equal([]);
    expect(await snapshotsOf({ endTS: reportedFrom - 0.5 })).to.deep.equal([]);
  });

  it('--repo: only events of artifacts attested from those repositories', async () => {
    expect(await snapshotsOf({ repos: ['acme/none', 'acme/other'] })).to.deep.equal([]);
  });

  it('refuses malformed values with a 400 naming the field, never a 5xx', async () => {
    const cases: Array<[string, string]> = [
      ['interval=1..2..3', 'query.interval'],
      ['interval=1..x', 'query.interval'],
      ['interval=~x', 'query.interval'],
      ['interval=0', 'query.interval'],
      ['start_ts=soon', 'query.start_ts'],
      ['end_ts=1e9', 'query.end_ts'],
      ['start_ts=', 'query.start_ts'],
    ];
    for (const [query, field] of cases) {
      const answer = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/environments/acme/prod/events?${query}`, token: server.token });
      expect(answer.status, query).to.equal(400);
      expect(Object.keys(answer.json.errors), query).to.deep.equal([field]);
    }
  });
});
