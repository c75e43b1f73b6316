// @database
/**
 * GET /metrics over HTTP, parsed as the Prometheus text format: requests by operation and status
 * with their latency, attachment bytes, process metrics, no names of the data in any label, and
 * TRAILPROOF_METRICS's three modes.
 */
import { expect } from 'chai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestServer, testBackend, type TestServer } from '@trailproof/server/testing';
import type { MetricsMode } from './metrics.ts';

/** A server started with metrics `mode` (unset: `startServer`'s default), as `serve` passes TRAILPROOF_METRICS. */
function serverWithMetrics(mode: MetricsMode | undefined): Promise<TestServer> {
  return startTestServer(mode === undefined ? {} : { server: { metrics: mode } });
}

describe('GET /metrics (Prometheus)', () => {
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const start = async (mode: MetricsMode | undefined) => {
    const server = await serverWithMetrics(mode);
    servers.push(server);
    return server;
  };

  it('counts requests by operation and status with latency, attachment bytes and process metrics; no data names in labels', async () => {
    const s = await start(undefined);
    const flow = 'payments-flow-q7';
    const trail = 'build-zz91';
    expect((await s.request('PUT', `/api/v2/trails/acme/${flow}`, { form: { data_json: JSON.stringify({ name: trail }) } })).status).to.equal(201);
    const attested = await s.request('POST', `/api/v2/attestations/acme/${flow}/trail/${trail}/junit`, {
      form: { data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [] }), attachment_file: { content: 'x'.repeat(1234), name: 'report.xml' } },
    });
    expect(attested.status).to.equal(201);
    expect((await s.request('GET', '/api/v2/environments/acme', { token: 'tp_wrong' })).status).to.equal(401);
    expect((await s.request('GET', '/no/such/route', { token: null })).status).to.equal(404);

    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));

    expect(families.get('trailproof_http_request_duration_seconds')?.type).to.equal('HISTOGRAM');
    // The parser merges a histogram's label sets (prom-client writes `le` first), so its series are read from the lines.
    const series = (suffix: string, labels: string) =>
      new RegExp(`^trailproof_http_request_duration_seconds_${suffix}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1];
    const count = (operation: string, method: string, status: string) => series('count', `operation="${operation}",method="${method}",status="${status}"`);
    expect(count('beginTrail', 'PUT', '201')).to.equal('1');
    expect(count('attestJunit', 'POST', '201')).to.equal('1');
    expect(count('listEnvironments', 'GET', '401')).to.equal('1');
    expect(count('unmatched', 'GET', '404')).to.equal('1');
    expect(Number(series('sum', 'operation="beginTrail",method="PUT",status="201"'))).to.be.greaterThan(0);
    expect(series('bucket', 'le="\\+Inf",operation="beginTrail",method="PUT",status="201"')).to.equal('1');

    const attachments = families.get('trailproof_attachment_bytes_total');
    expect(attachments?.metrics).to.deep.equal([{ labels: { operation: 'attestJunit' }, value: '1234' }]);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(families.has(name), name).to.equal(true);
    }
    for (const name of ['acme', flow, trail, 'report.xml']) expect(text, name).not.to.include(name);
  });

  it("write batches by writer: size, wait, time and commit after attestations; on PostgreSQL the pool's connections", async () => {
    const s = await start(undefined);
    expect((await s.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
    const attested = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        s.request('POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
          form: { data_json: JSON.stringify({ attestation_name: name, junit_results: [] }) },
        }),
      ),
    );
    expect(attested.map((r) => r.status)).to.deep.equal([201, 201, 201]);

    const text = await (await fetch(`${s.url}/metrics`)).text();
    const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    const value = (name: string, labels = '') => {
      const found = new RegExp(`^${name}${labels ? `\\{${labels}\\}` : ''} (\\S+)$`, 'm').exec(text)?.[1];
      return found === undefined ? undefined : Number(found);
    };
    for (const name of ['size', 'wait_seconds', 'duration_seconds', 'commit_seconds'])
      expect(families.get(`trailproof_write_batch_${name}`)?.type, name).to.equal('HISTOGRAM');
    const batches = value('trailproof_write_batch_size_count', 'writer="attestations"')!;
    expect(batches).to.be.within(1, 3);
    expect(value('trailproof_write_batch_size_sum', 'writer="attestations"'), 'attestations written').to.equal(3);
    expect(value('trailproof_write_batch_wait_seconds_count', 'writer="attestations"'), 'one wait per attestation').to.equal(3);
    expect(value('trailproof_write_batch_duration_seconds_count', 'writer="attestations"')).to.equal(batches);
    expect(value('trailproof_write_batch_commit_seconds_count', 'writer="attestations"')).to.equal(batches);
    expect(value('trailproof_write_batch_duration_seconds_sum', 'writer="attestations"')).to.be.greaterThan(0);
    expect(value('trailproof_write_batch_commit_seconds_sum', 'writer="attestations"')).to.be.at.most(
      value('trailproof_write_batch_duration_seconds_sum', 'writer="attestations"')!,
    );

    if (testBackend === 'postgres') {
      expect(value('trailproof_db_pool_max_connections')).to.equal(10);
      expect(value('trailproof_db_pool_connections')).to.be.within(1, 10);
      expect(value('trailproof_db_pool_idle_connections')).to.be.within(0, value('trailproof_db_pool_connections')!);
      expect(value('trailproof_db_pool_waiting_queries')).to.equal(0);
    } else {
      // Beginning the trail was a transaction of SQLite's group commit.
      expect(value('trailproof_write_batch_size_count', 'writer="transactions"')).to.be.at.least(1);
      expect(families.has('trailproof_db_pool_connections'), 'no pool on SQLite').to.equal(false);
    }
    for (const name of ['acme', 'app', 't1']) expect(text, name).not.to.match(new RegExp(`="${name}"`));
  });

  it('TRAILPROOF_METRICS=token: a token of any organisation, read-only too; none or a wrong one is a 401', async () => {
    const s = await start('token');
    expect((await fetch(`${s.url}/metrics`)).status).to.equal(401);
    expect((await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer tp_wrong' } })).status).to.equal(401);
    for (const token of [s.readToken, s.otherToken, s.token]) {
      const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).to.equal(200);
      expect(parsePrometheusTextFormat(await res.text()).length).to.be.greaterThan(10);
    }
  });

  it('TRAILPROOF_METRICS=off: no /metrics (404)', async () => {
    const s = await start('off');
    expect((await fetch(`${s.url}/metrics`)).status).to.equal(404);
  });
});
