// @database
/**
 * Reads that grow with what is stored (issue 30, item 2): a trail whose attestations carry 1 MB
 * of data each answered them all at once (102 MB for 100; a 500 past 512 MB, so acknowledged
 * evidence could no longer be read). Its attestations now come a page at a time, every one of
 * them reachable through the page links, and health answers meanwhile. A page of 20 of 1 MB each
 * was still 20 MB in one answer (issue 46, item 8: health waited 2.6 s): a page now also stops
 * before its data passes 4 MiB, and its next link continues from where it stopped.
 */
import { expect } from 'chai';
import { getTrail } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

const attestationCount = 45;
/**
 * user_data of a million characters: data_json just under its 1 MB bound. Naming
 * `target_artifacts` (empty: trail-level) makes the compliance facts look into each one's data.
 */
const bigData = (i: number) =>
  JSON.stringify({ attestation_name: `check-${i}`, is_compliant: true, target_artifacts: [], user_data: { filler: 'x'.repeat(1_000_000), i } });

describe('hostile clients: reading a trail of big attestations', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'big' }) } })).status).to.equal(201);
    for (let i = 0; i < attestationCount; i++) {
      const res = await server.request('POST', '/api/v2/attestations/acme/app/trail/big/generic', { form: { data_json: bigData(i) } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
  });
  after(() => server.close());

  it('answers a page bounded by bytes (4 of 1 MB, not 20: under 5 MB, not 20), with the offset to continue from, while health answers within 1 s', async () => {
    const { result, slowestMs } = await whileProbingHealth(server, () => server.request('GET', '/api/v2/trails/acme/app/big'));
    console.log(`      trail page of 1 MB attestations: the slowest health probe took ${slowestMs.toFixed(0)} ms`);
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(200);
    expect(result.bytes.length).to.be.below(5 * 1024 * 1024);
    expect(result.body.attestations.map((a: { attestation_name: string }) => a.attestation_name)).to.deep.equal(['check-0', 'check-1', 'check-2', 'check-3']);
    expect(result.body.attestations_pagination).to.deep.include({ total: attestationCount, page: 1, per_page: 20, page_count: 3, offset: 0, next_offset: 4 });
    // The page stopped early: its next link continues where it stopped, not at page 2 (which would skip 16).
    expect(result.body.attestations_pagination._links.next).to.deep.equal({ href: '/api/v2/trails/acme/app/big?offset=4' });
    // The compliance status still covers every attestation, not only the page's.
    expect(result.body.compliance_status.attestations_statuses).to.have.length(attestationCount);
    assertMatchesContract(getTrail, 200, result.body);
  });

  it('every stored attestation is reachable by following the next links, oldest first, each once, within 5 MB an answer', async () => {
    for (const first of ['/api/v2/trails/acme/app/big?per_page=7', '/api/v2/trails/acme/app/big?page=2&per_page=3']) {
      const seen: string[] = [];
      for (let href: string | undefined = first; href; ) {
        const page = await server.request('GET', href);
        expect(page.status).to.equal(200);
        expect(page.bytes.length).to.be.below(5 * 1024 * 1024);
        seen.push(...page.body.attestations.map((a: { attestation_name: string }) => a.attestation_name));
        href = page.body.attestations_pagination._links.next?.href;
      }
      const from = first.includes('page=2') ? 3 : 0;
      expect(seen, first).to.deep.equal(Array.from({ length: attestationCount - from }, (_, i) => `check-${i + from}`));
    }
  });

  it('a page from an offset holds what is left; get attestation (by name) answers the newest within the budget, while health answers within 1 s', async () => {
    const one = await server.request('GET', '/api/v2/trails/acme/app/big?offset=44&per_page=20');
    expect(one.body.attestations).to.have.length(1);
    expect(one.body.attestations_pagination).to.deep.include({ offset: 44, next_offset: null, page: 3 });
    expect(one.body.attestations_pagination._links.next).to.equal(null);
    for (let i = 0; i < 6; i++) {
      const data = JSON.stringify({ attestation_name: 'again', is_compliant: true, user_data: { filler: 'x'.repeat(1_000_000), i } });
      const res = await server.request('POST', '/api/v2/attestations/acme/app/trail/big/generic', { form: { data_json: data } });
      expect(res.status).to.equal(201);
    }
    const { result, slowestMs } = await whileProbingHealth(server, () => server.request('GET', '/api/v2/attestations/acme/app/trail/big/again'));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status, JSON.stringify(result.body).slice(0, 300)).to.equal(200);
    expect(result.bytes.length).to.be.below(5 * 1024 * 1024);
    // The newest four of the six, oldest first (100 of 1 MB each were 100 MB in one answer).
    expect(result.body.map((a: { attestation_data?: unknown; user_data?: { i: number } }) => a.user_data?.i)).to.deep.equal([2, 3, 4, 5]);
  });

  it('refuses a page larger than 20 with a 400 naming per_page; a page past the end is empty', async () => {
    const tooMany = await server.request('GET', '/api/v2/trails/acme/app/big?per_page=21');
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.errors).to.have.property('query.per_page');
    const past = await server.request('GET', '/api/v2/trails/acme/app/big?page=9');
    expect(past.status).to.equal(200);
    expect(past.body.attestations).to.deep.equal([]);
    expect(past.body.attestations_pagination).to.deep.include({ total: attestationCount + 6, page: 9, page_count: 3, next_offset: null });
  });
});

describe('hostile clients: listing many flows', function () {
  this.timeout(60_000);
  let server: TestServer;
  const flowCount = 130;
  before(async () => {
    server = await startTestServer();
    for (let i = 0; i < flowCount; i++) {
      const res = await server.request('PUT', '/api/v2/flows/acme', { json: { name: `flow-${String(i).padStart(3, '0')}` } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
  });
  after(() => server.close());

  it('answers every flow up to 1,000 when no page is asked (as the Kosli CLI asks), pages on request with a Link header and X-Total-Count', async () => {
    const all = await server.request('GET', '/api/v2/flows/acme');
    expect(all.status).to.equal(200);
    expect(all.body).to.have.length(flowCount);
    expect(all.headers.get('x-total-count')).to.equal(String(flowCount));
    const first = await server.request('GET', '/api/v2/flows/acme?per_page=100');
    expect(first.body).to.have.length(100);
    expect(first.headers.get('link')).to.equal(
      '</api/v2/flows/acme?per_page=100&page=1>; rel="first", </api/v2/flows/acme?per_page=100&page=2>; rel="next", </api/v2/flows/acme?per_page=100&page=2>; rel="last"',
    );
    expect(first.headers.get('x-total-pages')).to.equal('2');
    const second = await server.request('GET', '/api/v2/flows/acme?per_page=100&page=2');
    expect(second.body.map((f: { name: string }) => f.name)).to.deep.equal(Array.from({ length: 30 }, (_, i) => `flow-${100 + i}`));
    expect((await server.request('GET', '/api/v2/flows/acme?per_page=1001')).status).to.equal(400);
    // Search and paging together: the filter first, then the page.
    const searched = await server.request('GET', '/api/v2/flows/acme?search_by_name=flow-12&per_page=5');
    expect(searched.body.map((f: { name: string }) => f.name)).to.deep.equal(['flow-120', 'flow-121', 'flow-122', 'flow-123', 'flow-124']);
    expect(searched.headers.get('x-total-count')).to.equal('10');
  });
});

describe('hostile clients: reviewing one approval without end', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('an approval holds 100 reviews: the next is a 422 that says so, and nothing is added', async () => {
    await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    const review = (i: number) => ({ state: 'APPROVED', approved_by: `reviewer-${i}`, comment: 'c'.repeat(1000) });
    const requested = await server.request('POST', '/api/v2/approvals/acme/app', {
      json: { artifact_fingerprint: 'f'.repeat(64), description: 'release', src_commit_list: [], approvals: Array.from({ length: 60 }, (_, i) => review(i)) },
    });
    expect(requested.status, JSON.stringify(requested.body)).to.equal(201);
    for (let i = 60; i < 100; i++) expect((await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: review(i) })).status).to.equal(200);
    const refused = await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: review(100) });
    expect(refused.status).to.equal(422);
    expect(refused.body).to.deep.equal({
      message: 'Approval 1 has 100 reviews, the most one approval holds: request a new approval',
      errors: { approval_number: 'has 100 reviews already' },
    });
    expect((await server.request('GET', '/api/v2/approvals/acme/app/1')).body.approvals).to.have.length(100);
  });
});
