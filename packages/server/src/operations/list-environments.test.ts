// @database
import { expect } from 'chai';
import { listEnvironments } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const t0 = 1_763_000_000;
const base = '/api/v2/environments/acme';

/**
 * Seeded environments (times are offsets from t0):
 *
 *   name      type    space  tags                           modified  changed  reported  state
 *   alpha     K8S     s1     team:payments, critical:true   5000      2000     6000      true
 *   Beta      server  s2     team:search                    1000      -        -         -
 *   delta     K8S     s3     team:payments                  4000      1000     1000      false
 *   gamma_eu  ECS     s1     -                              3000      3000     3000      true
 *   gammaxeu  docker  -      region:eu                      2000      -        -         -
 */
const defs = {
  alpha: { type: 'K8S', space_id: 's1', tags: { team: 'payments', critical: true }, description: 'Production', policies: ['prod-policy'] },
  Beta: { type: 'server', space_id: 's2', tags: { team: 'search' } },
  delta: { type: 'K8S', space_id: 's3', tags: { team: 'payments' } },
  gamma_eu: { type: 'ECS', space_id: 's1', tags: {} },
  gammaxeu: { type: 'docker', space_id: null, tags: { region: 'eu' } },
} as const;

describe('list environments: GET /environments/{org}', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const org = Number((await server.store.findOrganization('acme'))!.id);
    const put = (name: keyof typeof defs, at: number) => {
      const d = defs[name] as { type: string; space_id: string | null; tags: Record<string, unknown>; description?: string; policies?: string[] };
      return server.store.upsertEnvironment(
        org,
        {
          name,
          type: d.type,
          description: d.description ?? '',
          tags: d.tags,
          policies: d.policies ?? [],
          included_environments: [],
          space_id: d.space_id,
          include_scaling: name === 'alpha',
        },
        t0 + at,
      );
    };
    const alpha = await put('alpha', 100);
    await server.store.recordReport(alpha.id, { at: t0 + 2000, changed: true, state: true });
    await put('alpha', 5000);
    await server.store.recordReport(alpha.id, { at: t0 + 6000, changed: false, state: true });
    await put('Beta', 1000);
    const delta = await put('delta', 100);
    await server.store.recordReport(delta.id, { at: t0 + 1000, changed: true, state: false });
    await put('delta', 4000);
    const gamma = await put('gamma_eu', 100);
    await server.store.recordReport(gamma.id, { at: t0 + 3000, changed: true, state: true });
    await put('gammaxeu', 2000);
    // Another organisation's environments, some under the same names, never show up in acme's lists.
    const globex = Number((await server.store.findOrganization('globex'))!.id);
    await server.store.upsertEnvironment(globex, { name: 'alpha', type: 'K8S', tags: { team: 'payments' }, space_id: 's1' }, t0);
    await server.store.upsertEnvironment(globex, { name: 'globex-only', type: 'K8S' }, t0);
  });
  after(() => server.close());

  const get = (query = '', token?: string) => server.request('GET', base + query, { token });
  const names = async (query: string) => {
    const res = await get(query);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).to.equal(200);
    return (res.body.environments as Array<{ name: string }>).map((e) => e.name);
  };

  it('answers the envelope with every field of every environment (contract)', async () => {
    const res = await get();
    expect(res.status).to.equal(200);
    assertMatchesContract(listEnvironments, 200, res.body);
    // Neither page nor per_page (what the Kosli CLI sends): every environment on one page.
    expect(res.body).to.include({ page: 1, per_page: 5, total_pages: 1, total_count: 5 });
    const alpha = res.body.environments.find((e: { name: string }) => e.name === 'alpha');
    expect(alpha).to.deep.equal({
      org: 'acme',
      name: 'alpha',
      type: 'K8S',
      description: 'Production',
      last_modified_at: t0 + 5000,
      include_scaling: true,
      tags: { team: 'payments', critical: true },
      last_reported_at: t0 + 6000,
      last_changed_at: t0 + 2000,
      state: true,
      policies: ['prod-policy'],
      included_environments: [],
    });
    const beta = res.body.environments.find((e: { name: string }) => e.name === 'Beta');
    // Never reported: the number and boolean SPEC.md types these as (0, false), never null
    expect(beta).to.include({ last_reported_at: 0, last_changed_at: 0, state: false, include_scaling: false, description: '' });
    expect(res.body.environments.find((e: { name: string }) => e.name === 'delta').state).to.equal(false);
  });

  describe('filters', () => {
    it('name: case-insensitive substring, with % and _ taken literally', async () => {
      expect(await names('?name=GAMMA')).to.deep.equal(['gamma_eu', 'gammaxeu']);
      expect(await names('?name=bet')).to.deep.equal(['Beta']);
      expect(await names('?name=a_e')).to.deep.equal(['gamma_eu']);
      expect(await names('?name=%25')).to.deep.equal([]);
      expect(await names('?name=a%25a')).to.deep.equal([]);
      expect(await names('?name=_')).to.deep.equal(['gamma_eu']);
      expect(await names('?name=')).to.have.length(5);
      expect(await names('?name=zzz')).to.deep.equal([]);
    });

    it('type: repeated values combine with OR; an unknown type is a 400', async () => {
      expect(await names('?type=K8S')).to.deep.equal(['alpha', 'delta']);
      expect(await names('?type=K8S&type=ECS')).to.deep.equal(['alpha', 'delta', 'gamma_eu']);
      expect(await names('?type=lambda')).to.deep.equal([]);
      const bad = await get('?type=K8S&type=mainframe');
      expect(bad.status).to.equal(400);
      expect(Object.keys(bad.body.errors)[0]).to.match(/^query\.type/);
    });

    it('space_id: repeated values combine with OR', async () => {
      expect(await names('?space_id=s1')).to.deep.equal(['alpha', 'gamma_eu']);
      expect(await names('?space_id=s1&space_id=s2')).to.deep.equal(['alpha', 'Beta', 'gamma_eu']);
      expect(await names('?space_id=nope')).to.deep.equal([]);
    });

    it('tag: a key, or key:value (non-string values as JSON text); repeated values combine with OR', async () => {
      expect(await names('?tag=team')).to.deep.equal(['alpha', 'Beta', 'delta']);
      expect(await names('?tag=team:payments')).to.deep.equal(['alpha', 'delta']);
      expect(await names('?tag=team%3Apayments')).to.deep.equal(['alpha', 'delta']);
      expect(await names('?tag=team:search&tag=region')).to.deep.equal(['Beta', 'gammaxeu']);
      expect(await names('?tag=critical:true')).to.deep.equal(['alpha']);
      expect(await names('?tag=team:pay')).to.deep.equal([]);
      expect(await names('?tag=payments')).to.deep.equal([]);
    });

    it('different filters combine with AND', async () => {
      expect(await names('?type=K8S&tag=team:payments&space_id=s3')).to.deep.equal(['delta']);
      expect(await names('?name=a&type=K8S&space_id=s1')).to.deep.equal(['alpha']);
      expect(await names('?type=K8S&type=ECS&space_id=s1&tag=team')).to.deep.equal(['alpha']);
      expect(await names('?type=server&space_id=s1')).to.deep.equal([]);
    });
  });

  describe('sorting', () => {
    const expected: Record<string, string[]> = {
      'name asc': ['alpha', 'Beta', 'delta', 'gamma_eu', 'gammaxeu'],
      'name desc': ['gammaxeu', 'gamma_eu', 'delta', 'Beta', 'alpha'],
      'last_modified_at asc': ['Beta', 'gammaxeu', 'gamma_eu', 'delta', 'alpha'],
      'last_modified_at desc': ['alpha', 'delta', 'gamma_eu', 'gammaxeu', 'Beta'],
      // never-changed environments (last_changed_at 0) first ascending, last descending, by name
      'last_changed_at asc': ['Beta', 'gammaxeu', 'delta', 'alpha', 'gamma_eu'],
      'last_changed_at desc': ['gamma_eu', 'alpha', 'delta', 'Beta', 'gammaxeu'],
    };
    for (const [key, order] of Object.entries(expected)) {
      const [sort, direction] = key.split(' ');
      it(`sort=${sort}&sort_direction=${direction}`, async () => {
        expect(await names(`?sort=${sort}&sort_direction=${direction}`)).to.deep.equal(order);
      });
    }

    it('sorts by name ascending by default and refuses unknown sorts', async () => {
      expect(await names('')).to.deep.equal(expected['name asc']);
      expect(await names('?sort_direction=desc')).to.deep.equal(expected['name desc']);
      expect(await names('?sort=last_changed_at')).to.deep.equal(expected['last_changed_at asc']);
      for (const query of ['?sort=created_at', '?sort_direction=up']) {
        const res = await get(query);
        expect(res.status, query).to.equal(400);
        expect(res.body.errors, query).to.have.keys([query.slice(1).split('=')[0] === 'sort' ? 'query.sort' : 'query.sort_direction']);
      }
    });
  });

  describe('pagination', () => {
    it('pages through in order, with true totals past the end', async () => {
      const pages = [];
      for (const page of [1, 2, 3, 4]) {
        const res = await get(`?per_page=2&page=${page}`);
        expect(res.status).to.equal(200);
        assertMatchesContract(listEnvironments, 200, res.body);
        expect(res.body).to.include({ page, per_page: 2, total_pages: 3, total_count: 5 });
        pages.push(res.body.environments.map((e: { name: string }) => e.name));
      }
      expect(pages).to.deep.equal([['alpha', 'Beta'], ['delta', 'gamma_eu'], ['gammaxeu'], []]);
    });

    it('accepts per_page 1 and 50', async () => {
      const one = await get('?per_page=1&page=5');
      expect(one.body).to.include({ total_pages: 5, total_count: 5 });
      expect(one.body.environments.map((e: { name: string }) => e.name)).to.deep.equal(['gammaxeu']);
      const fifty = await get('?per_page=50');
      expect(fifty.body).to.include({ per_page: 50, total_pages: 1 });
      expect(fifty.body.environments).to.have.length(5);
    });

    it('refuses per_page 0 and 51, page 0 and non-numbers with 400 naming the parameter', async () => {
      const cases: Array<[string, string]> = [
        ['?per_page=0', 'query.per_page'],
        ['?per_page=51', 'query.per_page'],
        ['?per_page=abc', 'query.per_page'],
        ['?per_page=2.5', 'query.per_page'],
        ['?page=0', 'query.page'],
        ['?page=-1', 'query.page'],
        ['?page=abc', 'query.page'],
        ['?page=', 'query.page'],
      ];
      for (const [query, field] of cases) {
        const res = await get(query);
        expect(res.status, query).to.equal(400);
        assertMatchesContract(listEnvironments, 400, res.body);
        expect(res.body.errors, query).to.have.keys([field]);
      }
    });

    it('_links reproduce the query with only page changed, and following next gives the next page', async () => {
      const query = '?sort=last_modified_at&sort_direction=desc&type=K8S&type=ECS&type=docker&tag=team&tag=region&per_page=1';
      const first = await get(query);
      expect(first.body).to.include({ page: 1, total_count: 3, total_pages: 3 });
      const links = first.body._links;
      expect(links.self.href).to.equal(base + query);
      expect(links.prev).to.equal(null);
      const sameQuery = (href: string, page: number) => {
        const url = new URL(href, 'http://x');
        expect(url.pathname).to.equal(base);
        const expectedParams = new URLSearchParams(query.slice(1));
        expectedParams.set('page', String(page));
        expect([...url.searchParams].sort()).to.deep.equal([...expectedParams].sort());
      };
      sameQuery(links.first.href, 1);
      sameQuery(links.next.href, 2);
      sameQuery(links.last.href, 3);

      const seen = [first.body.environments[0].name];
      let next = links.next;
      while (next) {
        const res = await server.request('GET', next.href);
        expect(res.status).to.equal(200);
        seen.push(res.body.environments[0].name);
        sameQuery(res.body._links.prev.href, res.body.page - 1);
        expect(res.body._links.self.href).to.equal(next.href);
        next = res.body._links.next;
      }
      expect(seen).to.deep.equal(['alpha', 'delta', 'gammaxeu']);
    });

    it('an empty result has no first/prev/next/last links', async () => {
      const res = await get('?name=nothing-matches');
      expect(res.body).to.include({ total_count: 0, total_pages: 0 });
      expect(res.body._links).to.deep.equal({ self: { href: `${base}?name=nothing-matches` }, first: null, prev: null, next: null, last: null });
    });
  });

  it("keeps organisations apart: globex sees only its own, and gets 403 on acme's", async () => {
    const own = await server.request('GET', '/api/v2/environments/globex', { token: server.otherToken });
    expect(own.status).to.equal(200);
    expect(own.body.environments.map((e: { name: string; org: string }) => [e.org, e.name])).to.deep.equal([
      ['globex', 'alpha'],
      ['globex', 'globex-only'],
    ]);
    expect(own.body.environments[0].tags).to.deep.equal({ team: 'payments' });
    expect(own.body.total_count).to.equal(2);
    const acmes = await get('?tag=team', server.otherToken);
    expect(acmes.status).to.equal(403);
    expect(JSON.stringify(acmes.body)).not.to.contain('payments');
    expect(await names('?name=globex')).to.deep.equal([]);
  });
});
