/**
 * GET /metrics over HTTP, parsed as the Prometheus text format: requests by operation and status
 * with their latency, attachment bytes, process metrics, no names of the data in any label, and
 * TRAILPROOF_METRICS's three modes.
 */
import { expect } from 'chai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

/** A server started with TRAILPROOF_METRICS set to `mode` (unset: the default). */
async function serverWithMetrics(mode: string | undefined): Promise<TestServer> {
  const before = process.env.TRAILPROOF_METRICS;
  if (mode === undefined) delete process.env.TRAILPROOF_METRICS;
  else process.env.TRAILPROOF_METRICS = mode;
  try {
    return await startTestServer();
  } finally {
    if (before === undefined) delete process.env.TRAILPROOF_METRICS;
    else process.env.TRAILPROOF_METRICS = before;
  }
}

describe('GET /metrics (Prometheus)', () => {
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const start = async (mode: string | undefined) => {
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
    const series = (suffix: string, labels: string) => new RegExp(`^trailproof_http_request_duration_seconds_${suffix}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1];
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
