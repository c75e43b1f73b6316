// @database
/**
 * `kosli get snapshot`, `assert snapshot`, `list snapshots` and `diff snapshots` as CLI v2.38
 * sends them and reads the answers. Followed (kosli-dev/cli 71ac0f30): cmd/kosli/cli_utils.go
 * (`handleSnapshotExpressions`: ENV, ENV#N, ENV~N, ENV@... split at the separator, the rest
 * url.PathEscape'd, ENV alone being -1; `handleExpressions` for assert: an int, ~N as -(N+1)),
 * getSnapshot.go (`Snapshot`, `Artifact`: `creationTimestamp[0]` read for every artifact whose
 * annotation.now is not 0, `git_commit[:7]` when not empty), assertSnapshot.go (`compliant` read as
 * a bool unchecked), listSnapshots.go (page, per_page, interval (always, empty by default) and
 * reverse; index, from, to, duration as float64 and compliant as bool, unchecked) and
 * diffSnapshots.go (snappish1 and snappish2 by url.Values; `DiffSnapshotsResponse`).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { countingStore } from '../../../../test/support/counting-store.ts';
import { fleetArtifact, fleetImage } from '../../../../test/support/fleet.ts';
import { matchRunning } from '../operations/snapshot-lookup.ts';
import { goDecodeProblems, goPathEscape, goQuery, nullable, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const fingerprint = (name: string) => createHash('sha256').update(name).digest('hex');
const commit = (n: number) => createHash('sha1').update(String(n)).digest('hex');

/** `Artifact` of getSnapshot.go, as the table reads it. */
const artifactAsRead: GoType = {
  name: 'string',
  flow_name: 'string',
  compliant: 'bool',
  deployments: ['int'],
  fingerprint: 'string',
  git_commit: 'string',
  commit_url: 'string',
  creationTimestamp: ['int'],
  pods: nullable('map'),
  annotation: { type: 'string', was: 'int', now: 'int' },
};
const snapshotAsRead: GoType = {
  index: 'int',
  timestamp: 'float64',
  type: 'string',
  user_id: 'string',
  user_name: 'string',
  compliant: 'bool',
  artifacts: [artifactAsRead],
};
/** `PodContent` and `Owner`: Go decodes each pod into them, failing on a field of another type. */
const podAsRead: GoType = { namespace: 'string', creationTimestamp: 'int', owners: [{ apiVersion: 'string', kind: 'string', name: 'string', uid: 'string' }] };
const listItemAsRead: GoType = { index: 'float64', from: 'float64', to: 'float64', duration: 'float64', compliant: 'bool' };
const diffArtifactAsRead: GoType = {
  fingerprint: 'string',
  flow: 'string',
  name: 'string',
  commit_url: 'string',
  most_recent_timestamp: 'int',
  instance_count: 'int?',
  s1_instance_count: 'int?',
  s2_instance_count: 'int?',
  pods: nullable(['string']),
};
const diffAsRead: GoType = {
  snappish1: { snapshot_id: 'string', artifacts: [diffArtifactAsRead] },
  snappish2: { snapshot_id: 'string', artifacts: [diffArtifactAsRead] },
  changed: { artifacts: [diffArtifactAsRead] },
  'not-changed': { artifacts: [diffArtifactAsRead] },
};

/** The path `kosli get snapshot EXPRESSION` calls (handleSnapshotExpressions, then url.JoinPath). */
function getSnapshotPath(org: string, expression: string): string {
  const separators = ['~', '#', '@'].filter((s) => expression.includes(s));
  if (separators.length === 0) return `/api/v2/snapshots/${org}/${expression}/-1`;
  const [env, ...rest] = expression.split(separators[0]!);
  return `/api/v2/snapshots/${org}/${env}/${goPathEscape(separators[0]! + rest.join(separators[0]!))}`;
}

/** The path `kosli assert snapshot EXPRESSION` calls (handleExpressions: the id as an int). */
function assertSnapshotPath(org: string, expression: string): string {
  const separator = expression.includes('~') ? '~' : expression.includes('#') ? '#' : '';
  if (!separator) return `/api/v2/snapshots/${org}/${expression}/-1`;
  const [env, n] = expression.split(separator) as [string, string];
  return `/api/v2/snapshots/${org}/${env}/${separator === '~' ? -Number(n) - 1 : Number(n)}`;
}

/** A pod as internal/kube's PodData is marshalled. */
const pod = (podName: string, image: string, creationTimestamp: number) => ({
  podName,
  namespace: 'shop',
  digests: { [`registry.acme.example/${image}`]: fingerprint(image) },
  creationTimestamp,
  owners: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${podName}-rs`, uid: `uid-${podName}`, controller: true, blockOwnerDeletion: true }],
});

describe('Kosli CLI wire format: get, assert, list and diff snapshots', () => {
  let server: TestServer;
  let send: (call: Omit<CliCall, 'token'>, token?: string) => ReturnType<typeof sendAsCli>;
  const get = async (path: string, expected = 200, token?: string) => {
    const answer = await send({ method: 'GET', path }, token);
    expect(answer.status, `${path}: ${answer.text}`).to.equal(expected);
    return answer;
  };

  before(async () => {
    server = await startTestServer();
    send = (call, token = server.token) => sendAsCli(server.url, { token, ...call });
    const ok = async (call: Omit<CliCall, 'token'>, token?: string) => {
      const answer = await send(call, token);
      expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.be.oneOf([200, 201]);
    };
    for (const name of ['prod', 'stage']) {
      await ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name, type: 'K8S', description: '', require_provenance: false } });
    }
    // shop:1 is attested by a compliant trail, api:1 by a non-compliant one, web:1 by none.
    for (const [n, image, compliant] of [
      [1, 'shop:1', true],
      [2, 'api:1', false],
    ] as const) {
      const trail = `build-${n}`;
      const info = { sha1: commit(n), message: 'Build', author: 'Jane <jane@example.com>', timestamp: 1_763_000_000, branch: 'main' };
      await ok({
        method: 'PUT',
        path: '/api/v2/trails/acme/shop',
        form: [{ type: 'field', name: 'data_json', content: { name: trail, description: '', git_commit_info: info } }],
      });
      await ok({
        method: 'POST',
        path: `/api/v2/attestations/acme/shop/trail/${trail}/generic`,
        form: [{ type: 'field', name: 'data_json', content: { artifact_fingerprint: fingerprint(image), attestation_name: 'scan', is_compliant: compliant } }],
      });
    }
    const report = (env: string, pods: unknown[]) => ok({ method: 'PUT', path: `/api/v2/environments/acme/${env}/report/K8S`, payload: { artifacts: pods } });
    await report('prod', [pod('shop-a', 'shop:1', 1_763_000_100), pod('shop-b', 'shop:1', 1_763_000_200), pod('api-a', 'api:1', 1_763_000_300)]);
    await report('prod', [
      pod('shop-a', 'shop:1', 1_763_000_100),
      pod('shop-b', 'shop:1', 1_763_000_200),
      pod('shop-c', 'shop:1', 1_763_000_400),
      pod('web-a', 'web:1', 1_763_000_500),
    ]);
    await report('prod', [pod('shop-a', 'shop:1', 1_763_000_100), pod('shop-b', 'shop:1', 1_763_000_200), pod('shop-c', 'shop:1', 1_763_000_400)]);
    await report('stage', [pod('web-a', 'web:1', 1_763_000_600)]);
    // The other organisation has an environment of the same name, running something else.
    await ok(
      { method: 'PUT', path: '/api/v2/environments/globex', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } },
      server.otherToken,
    );
    await ok(
      { method: 'PUT', path: '/api/v2/environments/globex/prod/report/K8S', payload: { artifacts: [pod('secret', 'secret:1', 1_763_000_700)] } },
      server.otherToken,
    );
  });
  after(() => server.close());

  const snapshotOf = async (expression: string) => {
    const answer = await get(getSnapshotPath('acme', expression));
    expect(goDecodeProblems(answer.json, snapshotAsRead)).to.deep.equal([]);
    return answer.json;
  };

  it('get snapshot ENV: the latest, its artifacts matched to the trail that attested them, readable by the table printer', async () => {
    expect(getSnapshotPath('acme', 'prod')).to.equal('/api/v2/snapshots/acme/prod/-1');
    const latest = await snapshotOf('prod');
    expect(latest).to.include({ index: 3, type: 'K8S', compliant: true, is_latest: true, next_snapshot_timestamp: null });
    expect(latest.user_name).to.be.a('string').and.not.equal('');
    const running = latest.artifacts.filter((a: { annotation: { now: number } }) => a.annotation.now > 0);
    expect(running).to.have.length(1);
    expect(running[0]).to.deep.include({
      name: 'registry.acme.example/shop:1',
      fingerprint: fingerprint('shop:1'),
      flow_name: 'shop',
      trail_name: 'build-1',
      git_commit: commit(1),
      compliant: true,
      annotation: { type: 'unchanged', was: 3, now: 3 },
    });
    expect(running[0].creationTimestamp).to.have.length(3);
    // Each pod decodes into PodContent (owners into []Owner).
    expect(Object.keys(running[0].pods).sort()).to.deep.equal(['shop-a', 'shop-b', 'shop-c']);
    for (const content of Object.values(running[0].pods)) expect(goDecodeProblems(content, podAsRead)).to.deep.equal([]);
    // What exited since the previous snapshot is there too, with now 0, which the table skips.
    const exited = latest.artifacts.filter((a: { annotation: { now: number } }) => a.annotation.now === 0);
    expect(exited.map((a: { fingerprint: string; annotation: unknown; flow_name: string }) => [a.fingerprint, a.annotation, a.flow_name])).to.deep.equal([
      [fingerprint('web:1'), { type: 'exited', was: 1, now: 0 }, ''],
    ]);
  });

  it('get snapshot ENV#N and ENV~N: by number and N behind the latest; unattested and non-compliant artifacts make it non-compliant', async () => {
    expect(getSnapshotPath('acme', 'prod#1')).to.equal('/api/v2/snapshots/acme/prod/%231');
    const first = await snapshotOf('prod#1');
    expect(first).to.include({ index: 1, compliant: false, is_latest: false });
    expect(first.artifact_compliance_count).to.deep.equal({ compliant: 1, non_compliant: 1 });
    const api = first.artifacts.find((a: { fingerprint: string }) => a.fingerprint === fingerprint('api:1'));
    expect(api).to.deep.include({
      flow_name: 'shop',
      trail_name: 'build-2',
      git_commit: commit(2),
      compliant: false,
      annotation: { type: 'started', was: 0, now: 1 },
    });
    const second = await snapshotOf('prod~1');
    expect(second).to.include({ index: 2, compliant: false });
    expect(second.next_snapshot_timestamp).to.be.a('number');
    const web = second.artifacts.find((a: { fingerprint: string }) => a.fingerprint === fingerprint('web:1'));
    expect(web).to.deep.include({ flow_name: '', trail_name: '', git_commit: '', compliant: false });
    const shop = second.artifacts.find((a: { fingerprint: string }) => a.fingerprint === fingerprint('shop:1'));
    expect(shop.annotation).to.deep.equal({ type: 'scaled', was: 2, now: 3 });
    expect((await snapshotOf('prod~0')).index).to.equal(3);
    expect((await snapshotOf('prod#3')).index).to.equal(3);
  });

  it('get snapshot ENV@{...}: the snapshot current at a UTC time, a time ago, or now', async () => {
    const list = await get(
      `/api/v2/snapshots/acme/prod?${goQuery([
        ['page', '1'],
        ['per_page', '15'],
        ['interval', ''],
        ['reverse', 'true'],
      ])}`,
    );
    const times = (list.json as Array<{ index: number; from: number }>).map((s) => s.from);
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19);
    // Whatever the seconds the reports fell in: the last snapshot made at or before the time.
    const expected = (at: number) => times.filter((t) => t <= at).length;
    for (const at of [Math.floor(times[1]!), Math.ceil(times[2]!)]) {
      expect(getSnapshotPath('acme', `prod@{${iso(at)}}`)).to.equal(`/api/v2/snapshots/acme/prod/@%7B${iso(at)}%7D`);
      // Reports within one second: a time cut to the second may fall before the first of them.
      if (expected(at) === 0) await get(getSnapshotPath('acme', `prod@{${iso(at)}}`), 404);
      else expect((await snapshotOf(`prod@{${iso(at)}}`)).index, iso(at)).to.equal(expected(at));
    }
    expect((await snapshotOf('prod@{now}')).index).to.equal(3);
    expect((await snapshotOf('prod@{0.hours.ago}')).index).to.equal(3);
    const before = await get(getSnapshotPath('acme', `prod@{${iso(Math.floor(times[0]!) - 1)}}`), 404);
    expect(before.json.message).to.equal(`Environment 'prod' has no snapshot at ${iso(Math.floor(times[0]!) - 1)}.000Z`);
    await get(getSnapshotPath('acme', 'prod@{2.weeks.ago}'), 404);
    await get(getSnapshotPath('acme', 'prod@{1.month.ago}'), 404);
  });

  it('refuses a malformed expression with a 400 naming it, and a snapshot that does not exist with a 404', async () => {
    for (const bad of [
      '0',
      '#0',
      '~x',
      '~-1',
      '#1.5',
      '1e3',
      '--1',
      '@{yesterday}',
      '@{2023-02-30T12:00:00}',
      '@2023-10-02T12:00:00',
      '@{3.fortnights.ago}',
      '@{2023-10-02 12:00:00}',
    ]) {
      const answer = await get(`/api/v2/snapshots/acme/prod/${goPathEscape(bad)}`, 400);
      expect(answer.json.errors, bad).to.have.property('path.snapshot_expression');
      expect(answer.json.message).to.contain(bad);
    }
    const long = await get(`/api/v2/snapshots/acme/prod/${'9'.repeat(65)}`, 400);
    expect(long.json.errors).to.have.property('path.snapshot_expression');
    await get('/api/v2/snapshots/acme/prod/%2399', 404);
    await get('/api/v2/snapshots/acme/prod/~99', 404);
    await get('/api/v2/snapshots/acme/nowhere/-1', 404);
  });

  it('assert snapshot: compliant read as a bool, from -1, ~N as -(N+1) and #N', async () => {
    expect(assertSnapshotPath('acme', 'prod~1')).to.equal('/api/v2/snapshots/acme/prod/-2');
    const verdicts: Record<string, boolean> = {};
    for (const expression of ['prod', 'prod~1', 'prod~2', 'prod#3', 'stage']) {
      const answer = await get(assertSnapshotPath('acme', expression));
      expect(goDecodeProblems(answer.json, { compliant: 'bool' })).to.deep.equal([]);
      verdicts[expression] = answer.json.compliant;
    }
    expect(verdicts).to.deep.equal({ prod: true, 'prod~1': false, 'prod~2': false, 'prod#3': true, stage: false });
  });

  const listQuery = (o: { page?: number; perPage?: number; interval?: string; reverse?: boolean } = {}) =>
    goQuery([
      ['page', String(o.page ?? 1)],
      ['per_page', String(o.perPage ?? 15)],
      ['interval', o.interval ?? ''],
      ['reverse', String(o.reverse ?? false)],
    ]);
  const listOf = async (o?: Parameters<typeof listQuery>[0]) => {
    const answer = await get(`/api/v2/snapshots/acme/prod?${listQuery(o)}`);
    expect(goDecodeProblems(answer.json, [listItemAsRead])).to.deep.equal([]);
    return answer.json as Array<{ index: number; from: number; to: number; duration: number; compliant: boolean }>;
  };

  it('list snapshots: newest first with from, to (0 for the latest), duration and the state at each report', async () => {
    expect(listQuery()).to.equal('interval=&page=1&per_page=15&reverse=false');
    const all = await listOf();
    expect(all.map((s) => [s.index, s.compliant])).to.deep.equal([
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect(all[0]!.to).to.equal(0);
    expect(all[1]!.to).to.equal(all[0]!.from);
    expect(all[2]!.duration).to.be.closeTo(all[1]!.from - all[2]!.from, 1e-6);
    expect((await listOf({ reverse: true })).map((s) => s.index)).to.deep.equal([1, 2, 3]);
    expect((await listOf({ perPage: 1, page: 2 })).map((s) => s.index)).to.deep.equal([2]);
    expect((await listOf({ interval: '1..2' })).map((s) => s.index)).to.deep.equal([2, 1]);
    expect((await listOf({ interval: '~1..NOW' })).map((s) => s.index)).to.deep.equal([3, 2]);
    expect((await listOf({ interval: '2' })).map((s) => s.index)).to.deep.equal([2]);
    expect((await listOf({ page: 9 })).map((s) => s.index)).to.deep.equal([]);
    for (const interval of ['1..2..3', '~x', '0']) {
      const bad = await get(`/api/v2/snapshots/acme/prod?${listQuery({ interval })}`, 400);
      expect(bad.json.errors, interval).to.have.property('query.interval');
    }
  });

  const diffOf = async (snappish1: string, snappish2: string, token?: string) => {
    const answer = await get(
      `/api/v2/env-diff/acme?${goQuery([
        ['snappish1', snappish1],
        ['snappish2', snappish2],
      ])}`,
      200,
      token,
    );
    expect(goDecodeProblems(answer.json, diffAsRead)).to.deep.equal([]);
    return answer.json;
  };
  const summary = (item: { artifacts: Array<Record<string, unknown>> }) =>
    item.artifacts.map((a) => [a.name, a.flow, a.instance_count ?? `${a.s1_instance_count}->${a.s2_instance_count}`]);

  it('diff snapshots: only in the first, only in the second, scaled, and alike; ENV#N, ENV~N, ENV and ENV@{...}', async () => {
    const diff = await diffOf('prod#1', 'prod~1');
    expect(diff.snappish1.snapshot_id).to.equal('prod#1');
    expect(diff.snappish2.snapshot_id).to.equal('prod#2');
    expect(summary(diff.snappish1)).to.deep.equal([['registry.acme.example/api:1', 'shop', 1]]);
    expect(summary(diff.snappish2)).to.deep.equal([['registry.acme.example/web:1', '', 1]]);
    expect(summary(diff.changed)).to.deep.equal([['registry.acme.example/shop:1', 'shop', '2->3']]);
    expect(diff.changed.artifacts[0].pods).to.deep.equal(['shop-a', 'shop-b', 'shop-c']);
    expect(diff['not-changed'].artifacts).to.deep.equal([]);
    const same = await diffOf('prod~1', 'prod@{now}');
    expect(summary(same.snappish2)).to.deep.equal([]);
    expect(summary(same['not-changed'])).to.deep.equal([['registry.acme.example/shop:1', 'shop', 3]]);
    // Two environments of the organisation.
    const across = await diffOf('stage', 'prod');
    expect(across.snappish1.snapshot_id).to.equal('stage#1');
    expect(summary(across.snappish1)).to.deep.equal([['registry.acme.example/web:1', '', 1]]);
    expect(summary(across.snappish2)).to.deep.equal([['registry.acme.example/shop:1', 'shop', 3]]);
  });

  it('diff snapshots refuses a malformed snappish with a 400 naming it, and an unknown environment or snapshot with a 404', async () => {
    for (const [field, bad] of [
      ['snappish1', 'prod#x'],
      ['snappish1', 'prod~1#2'],
      ['snappish2', '#3'],
      ['snappish2', 'prod@{soon}'],
      ['snappish2', 'prod@'],
    ] as const) {
      const values: Array<[string, string]> = [
        ['snappish1', field === 'snappish1' ? bad : 'prod'],
        ['snappish2', field === 'snappish2' ? bad : 'prod'],
      ];
      const answer = await get(`/api/v2/env-diff/acme?${goQuery(values)}`, 400);
      expect(answer.json.errors, bad).to.have.property(`query.${field}`);
    }
    await get(`/api/v2/env-diff/acme?${goQuery([['snappish1', 'prod']])}`, 400);
    await get(
      `/api/v2/env-diff/acme?${goQuery([
        ['snappish1', 'prod'],
        ['snappish2', 'nowhere'],
      ])}`,
      404,
    );
    await get(
      `/api/v2/env-diff/acme?${goQuery([
        ['snappish1', 'prod#9'],
        ['snappish2', 'prod'],
      ])}`,
      404,
    );
  });

  it("another organisation's environments are invisible: its token reads none of acme's, and its own prod is its own", async () => {
    for (const path of [
      '/api/v2/snapshots/acme/prod/-1',
      `/api/v2/snapshots/acme/prod?${listQuery()}`,
      `/api/v2/env-diff/acme?${goQuery([
        ['snappish1', 'prod'],
        ['snappish2', 'stage'],
      ])}`,
    ]) {
      const answer = await send({ method: 'GET', path }, server.otherToken);
      expect(answer.status, path).to.be.oneOf([401, 403, 404]);
      expect(answer.text).to.not.contain(fingerprint('shop:1'));
    }
    const own = await get('/api/v2/snapshots/globex/prod/-1', 200, server.otherToken);
    expect(own.json.artifacts.map((a: { fingerprint: string }) => a.fingerprint)).to.deep.equal([fingerprint('secret:1')]);
    const theirs = await send(
      {
        method: 'GET',
        path: `/api/v2/env-diff/globex?${goQuery([
          ['snappish1', 'prod'],
          ['snappish2', 'stage'],
        ])}`,
      },
      server.otherToken,
    );
    expect(theirs.status).to.equal(404);
    await get('/api/v2/snapshots/acme/prod/-1', 200, server.readToken);
  });
});

describe('Kosli CLI wire format: a 1,000-pod K8S snapshot matched to reported artifacts', function () {
  // 550 artifacts reported and 1,000 pods sent on a shared machine, on either database.
  this.timeout(120_000);
  let server: TestServer;
  const trails = 50;
  const images = 600;
  const reportedImages = 550;
  const image = fleetImage;
  /** Trail of artifact k: of 50 trails, the even ones compliant. */
  const trailOf = (k: number) => k % trails;

  before(async () => {
    server = await startTestServer();
    const ok = async (call: Omit<CliCall, 'token'>) => {
      const answer = await sendAsCli(server.url, { token: server.token, ...call });
      expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.be.oneOf([200, 201]);
    };
    await ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'fleet', type: 'K8S', description: '', require_provenance: false } });
    for (let t = 0; t < trails; t++) {
      await ok({ method: 'PUT', path: '/api/v2/trails/acme/fleet', form: [{ type: 'field', name: 'data_json', content: { name: `t${t}`, description: '' } }] });
      await ok({
        method: 'POST',
        path: `/api/v2/attestations/acme/fleet/trail/t${t}/generic`,
        form: [{ type: 'field', name: 'data_json', content: { attestation_name: 'checks', is_compliant: t % 2 === 0 } }],
      });
    }
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    for (let k = 0; k < reportedImages; k++) {
      const appended = await server.store.appendArtifact(fleetArtifact(organizationId, k, trails));
      expect(appended).to.include({ created: true });
    }
    // Pod i runs image i mod 600: images 0-399 in two pods, 400-599 in one.
    const pods = Array.from({ length: 1000 }, (_, i) => pod(`pod-${i}`, image(i % images), 1_763_000_000 + i));
    await ok({ method: 'PUT', path: '/api/v2/environments/acme/fleet/report/K8S', payload: { artifacts: pods } });
  });
  after(() => server.close());

  it('get snapshot: every artifact with its reported flow, trail, commit and compliance; the snapshot non-compliant', async () => {
    const answer = await sendAsCli(server.url, { method: 'GET', path: getSnapshotPath('acme', 'fleet'), token: server.token });
    expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
    expect(goDecodeProblems(answer.json, snapshotAsRead)).to.deep.equal([]);
    const byFingerprint = new Map<string, Record<string, any>>(answer.json.artifacts.map((a: Record<string, any>) => [a.fingerprint, a]));
    expect(byFingerprint.size).to.equal(images);
    const wrong: string[] = [];
    for (let k = 0; k < images; k++) {
      const a = byFingerprint.get(fingerprint(image(k)))!;
      const reported = k < reportedImages;
      const expected = {
        flow_name: reported ? 'fleet' : '',
        trail_name: reported ? `t${trailOf(k)}` : '',
        git_commit: reported ? commit(k) : '',
        commit_url: reported ? fleetArtifact(0, k, trails).commitUrl : '',
        compliant: reported && trailOf(k) % 2 === 0,
        replicas: k < 400 ? 2 : 1,
      };
      const actual = {
        flow_name: a.flow_name,
        trail_name: a.trail_name,
        git_commit: a.git_commit,
        commit_url: a.commit_url,
        compliant: a.compliant,
        replicas: a.creationTimestamp.length,
      };
      if (JSON.stringify(actual) !== JSON.stringify(expected)) wrong.push(`${k}: ${JSON.stringify(actual)}`);
    }
    expect(wrong).to.deep.equal([]);
    expect(answer.json.compliant).to.equal(false);
    expect(answer.json.artifact_compliance_count).to.deep.equal({ compliant: 275, non_compliant: 325 });
    expect(Object.keys(byFingerprint.get(fingerprint(image(0)))!.pods).sort()).to.deep.equal(['pod-0', 'pod-600']);
  });

  it('deployments and environment events carry the reported artifact’s flow, trail and commit', async () => {
    const deployments = await server.request('GET', '/api/v2/deployments/acme?env_name=fleet&per_page=50');
    expect(deployments.status).to.equal(200);
    expect(deployments.body.total_count).to.equal(images);
    for (const d of deployments.body.deployments as Array<Record<string, any>>) {
      const k = Number(/^registry\.acme\.example\/img-(\d+):1$/.exec(d.artifact_name)![1]);
      const reported = k < reportedImages;
      expect([d.flow_name, d.trail_name, d.git_commit], d.artifact_name).to.deep.equal(reported ? ['fleet', `t${trailOf(k)}`, commit(k)] : [null, null, null]);
    }
    const events = await server.request('GET', '/api/v2/environments/acme/fleet/events?per_page=100&page=6');
    expect(events.status).to.equal(200);
    expect(events.body).to.have.length(100);
    for (const e of events.body as Array<Record<string, any>>) {
      const k = Number(/img-(\d+):1$/.exec(e.artifact_name)![1]);
      const reported = k < reportedImages;
      expect([e.pipeline, e.trail_name, e.git_commit, e.artifact_compliance], e.artifact_name).to.deep.equal(
        reported ? ['fleet', `t${trailOf(k)}`, commit(k), trailOf(k) % 2 === 0] : ['', null, null, false],
      );
    }
  });

  it('matches in a batch: four store calls for 600 fingerprints of 50 trails, not one per pod or per trail', async () => {
    const { store: counted, calls } = countingStore(server.store);
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    const fingerprints = Array.from({ length: 1000 }, (_, i) => fingerprint(image(i % images)));
    const matched = await matchRunning(counted, organizationId, fingerprints, Date.now() / 1000);
    expect(matched.get(fingerprint(image(2)))).to.deep.include({ compliant: true });
    expect(matched.get(fingerprint(image(1)))).to.deep.include({ compliant: false });
    expect([...new Set(calls)].sort()).to.deep.equal(['artifactMatchesOf', 'attestationsOfFingerprints', 'complianceFactsOfTrails', 'effectiveTemplatesOf']);
    expect(calls).to.have.length(4);
  });
});

describe('Kosli CLI wire format: a snapshot of two artifacts of one trail, one failing its attestation', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('each artifact is judged by its own state (attest artifact, then attest generic --fingerprint), not by the whole trail', async () => {
    const ok = async (call: Omit<CliCall, 'token'>) => {
      const answer = await sendAsCli(server.url, { token: server.token, ...call });
      expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.be.oneOf([200, 201]);
    };
    const sha = commit(7);
    await ok({ method: 'PUT', path: '/api/v2/trails/acme/duo', form: [{ type: 'field', name: 'data_json', content: { name: 'b7', description: '' } }] });
    for (const name of ['front', 'back']) {
      // AttestArtifactPayload (attestArtifact.go), JSON.
      await ok({
        method: 'POST',
        path: '/api/v2/artifacts/acme/duo',
        payload: {
          fingerprint: fingerprint(`${name}:7`),
          filename: `${name}.tgz`,
          git_commit: sha,
          git_commit_info: { sha1: sha, message: 'Build', author: 'Ada <ada@example.com>', timestamp: 1_763_800_000, branch: 'main' },
          build_url: 'https://ci.example/7',
          commit_url: `https://git.example/commit/${sha}`,
          repo_url: 'https://git.example',
          template_reference_name: name,
          trail_name: 'b7',
        },
      });
    }
    await ok({
      method: 'POST',
      path: '/api/v2/attestations/acme/duo/trail/b7/generic',
      form: [{ type: 'field', name: 'data_json', content: { artifact_fingerprint: fingerprint('back:7'), attestation_name: 'scan', is_compliant: false } }],
    });
    await ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'duo-env', type: 'K8S', description: '', require_provenance: false } });
    await ok({
      method: 'PUT',
      path: '/api/v2/environments/acme/duo-env/report/K8S',
      payload: { artifacts: [pod('front-1', 'front:7', 1_763_000_000), pod('back-1', 'back:7', 1_763_000_000)] },
    });
    const answer = await sendAsCli(server.url, { method: 'GET', path: getSnapshotPath('acme', 'duo-env'), token: server.token });
    expect(goDecodeProblems(answer.json, snapshotAsRead)).to.deep.equal([]);
    const judged = Object.fromEntries(
      answer.json.artifacts.map((a: Record<string, unknown>) => [a.name, [a.trail_name, a.git_commit, a.commit_url, a.compliant]]),
    );
    expect(judged).to.deep.equal({
      'registry.acme.example/front:7': ['b7', sha, `https://git.example/commit/${sha}`, true],
      'registry.acme.example/back:7': ['b7', sha, `https://git.example/commit/${sha}`, false],
    });
    expect(answer.json.compliant).to.equal(false);
  });
});
