// @database
/**
 * `kosli list trails` as CLI v2.38 sends it and reads the answer. Followed: cmd/kosli/listTrails.go
 * (`run`: GET /trails/{org} with per_page and page always, flow, fingerprint and flow_tag only when
 * set, by `url.Values.Encode`; `validate`: --flow-tag must hold `=`; `listTrailsResponse`: `data[]`
 * of `Trail{name, description, compliance_state}` (Go strings) and `Pagination{page, page_count,
 * total}` (float64)).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { goDecodeProblems, goQuery, sendAsCli, type GoType } from './go-wire.ts';

const fingerprint = (name: string) => createHash('sha256').update(name).digest('hex');

/** `listTrailsResponse` as json.Unmarshal fills it: a string field takes a string or null, a float64 a number. */
const answerAsRead: GoType = {
  data: [{ name: 'string', description: 'string?', compliance_state: 'string' }],
  pagination: { page: 'float64', page_count: 'float64', total: 'float64' },
};

/** The query `run` builds (per_page 20 and page 1 by default). */
function listQuery(o: { page?: number; pageLimit?: number; flow?: string; fingerprint?: string; flowTag?: string } = {}): string {
  const values: Array<[string, string]> = [
    ['per_page', String(o.pageLimit ?? 20)],
    ['page', String(o.page ?? 1)],
  ];
  if (o.flow) values.push(['flow', o.flow]);
  if (o.fingerprint) values.push(['fingerprint', o.fingerprint]);
  if (o.flowTag) values.push(['flow_tag', o.flowTag]);
  return goQuery(values);
}

describe('Kosli CLI wire format: list trails', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const begin = async (flow: string, trail: string) => {
      const answer = await sendAsCli(server.url, {
        method: 'PUT',
        path: `/api/v2/trails/acme/${flow}`,
        token: server.token,
        form: [{ type: 'field', name: 'data_json', content: { name: trail, description: `Build ${trail}` } }],
      });
      expect(answer.status, answer.text).to.equal(201);
    };
    // Begun in this order: shop-1, api-1, shop-2, api-2 (newest last).
    await begin('shop', 'shop-1');
    await begin('api', 'api-1');
    await begin('shop', 'shop-2');
    await begin('api', 'api-2');
    // The same artifact attested in a trail of each flow.
    for (const [flow, trail] of [
      ['shop', 'shop-1'],
      ['api', 'api-2'],
    ]) {
      const attested = await sendAsCli(server.url, {
        method: 'POST',
        path: `/api/v2/attestations/acme/${flow}/trail/${trail}/generic`,
        token: server.token,
        form: [{ type: 'field', name: 'data_json', content: { artifact_fingerprint: fingerprint('app:1'), attestation_name: 'scan', is_compliant: true } }],
      });
      expect(attested.status, attested.text).to.equal(201);
    }
  });
  after(() => server.close());

  const list = async (query: string, token = server.token) => {
    const answer = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/trails/acme?${query}`, token });
    expect(answer.status, `${query}: ${answer.text}`).to.equal(200);
    expect(goDecodeProblems(answer.json, answerAsRead)).to.deep.equal([]);
    return answer.json as { data: Array<{ name: string }>; pagination: { page: number; page_count: number; total: number } };
  };
  const names = async (query: string) => (await list(query)).data.map((t) => t.name);

  it('no filter: every trail of the organisation, newest first, paged', async () => {
    expect(listQuery()).to.equal('page=1&per_page=20');
    const all = await list(listQuery());
    expect(all.data.map((t) => t.name)).to.deep.equal(['api-2', 'shop-2', 'api-1', 'shop-1']);
    expect(all.pagination).to.deep.include({ page: 1, page_count: 1, total: 4 });
    const second = await list(listQuery({ page: 2, pageLimit: 3 }));
    expect(second.data.map((t) => t.name)).to.deep.equal(['shop-1']);
    expect(second.pagination).to.deep.include({ page: 2, page_count: 2, total: 4 });
    // Read tokens read; the answer is the same for them.
    expect((await list(listQuery(), server.readToken)).data).to.have.length(4);
  });

  it('--flow: that flow only; --fingerprint: trails with an attestation of that artifact, in any flow; both: both', async () => {
    expect(await names(listQuery({ flow: 'shop' }))).to.deep.equal(['shop-2', 'shop-1']);
    expect(await names(listQuery({ fingerprint: fingerprint('app:1') }))).to.deep.equal(['api-2', 'shop-1']);
    expect(await names(listQuery({ flow: 'shop', fingerprint: fingerprint('app:1') }))).to.deep.equal(['shop-1']);
    const none = await list(listQuery({ fingerprint: fingerprint('other') }));
    expect(none).to.deep.include({ data: [] });
    expect(none.pagination).to.deep.include({ total: 0, page_count: 0 });
  });

  it('--flow-tag: the trails of the flows with that tag (set as `kosli tag flow` sends it)', async () => {
    const none = await list(listQuery({ flowTag: 'team=backend' }));
    expect(none.data).to.deep.equal([]);
    expect(none.pagination.total).to.equal(0);
    const tag = await sendAsCli(server.url, {
      method: 'PATCH',
      path: '/api/v2/tags/acme/flow/shop',
      token: server.token,
      payload: { set_tags: { team: 'backend' }, remove_tags: [] },
    });
    expect(tag.status).to.equal(200);
    const tagged = await list(listQuery({ flowTag: 'team=backend' }));
    expect(tagged.data.map((t: { name: string }) => t.name)).to.deep.equal(['shop-2', 'shop-1']);
    expect(tagged.pagination.total).to.equal(2);
    expect((await list(listQuery({ flowTag: 'team=backend', flow: 'api' }))).data).to.deep.equal([]);
  });

  it('an unknown flow is a 404 naming it; another organisation 403; malformed values 400 by field', async () => {
    const unknown = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/trails/acme?${listQuery({ flow: 'nowhere' })}`, token: server.token });
    expect(unknown.status).to.equal(404);
    expect(unknown.json.message).to.contain("'nowhere'");
    const other = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/trails/acme?${listQuery()}`, token: server.otherToken });
    expect(other.status).to.equal(403);
    for (const [query, field] of [
      ['fingerprint=xyz', 'query.fingerprint'],
      ['flow_tag=team', 'query.flow_tag'],
      ['per_page=0', 'query.per_page'],
    ]) {
      const answer = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/trails/acme?${query}`, token: server.token });
      expect(answer.status, query).to.equal(400);
      expect(Object.keys(answer.json.errors), query).to.deep.equal([field]);
    }
  });
});
