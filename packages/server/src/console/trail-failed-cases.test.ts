// @database
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { signInTo, textOf } from '../../../../test/support/console-story.ts';
import { rawSql } from '../../../../test/support/raw-sql.ts';

const failing = `<?xml version="1.0"?>
<testsuites><testsuite name="checkout" tests="3" failures="1" errors="1">
<testcase classname="Cart" name="adds_item"/>
<testcase classname="Cart" name="applies_discount"><failure message="expected 90 but was 100">at Cart.test.ts:42</failure></testcase>
<testcase classname="Cart" name="talks_to_tax"><error type="TimeoutError"/></testcase>
</testsuite></testsuites>
`;
const long = `<testsuites><testsuite name="long"><testcase name="${'n'.repeat(5000)}"><failure message="${'m'.repeat(5000)}"/></testcase></testsuite></testsuites>`;
const withDoctype = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "e">]><testsuites><testsuite name="d"><testcase name="c"><failure/></testcase></testsuite></testsuites>`;
const suite = (failures: number, errors = 0) => ({ name: 's', failures, errors, skipped: 0, total: 3, duration: 1, timestamp: null });

/** The failed cases the trail page shows, read from each report once and kept (junit-cases.ts, kept-failed-cases.ts). */
describe('console trail page: failed test cases', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  const trailText = async () => {
    const res = await fetch(`${server.url}/ui/acme/flows/app/trails/r1`, { headers: { cookie } });
    expect(res.status).to.equal(200);
    return textOf(await res.text());
  };
  before(async () => {
    server = await startTestServer();
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'r1' }) } })).status).to.equal(201);
    for (const [name, xml, results] of [
      ['unit', failing, suite(1, 1)],
      ['long', long, suite(1)],
      ['doctype', withDoctype, suite(1)],
    ] as const) {
      const res = await server.request('POST', '/api/v2/attestations/acme/app/trail/r1/junit', {
        form: { data_json: JSON.stringify({ attestation_name: name, junit_results: [results] }), attachment_file: { content: xml, name: `${name}.xml` } },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server?.close());

  const expectCases = (text: string) => {
    expect(text).to.contain('Cart.applies_discount (failure in suite checkout) expected 90 but was 100 at Cart.test.ts:42');
    expect(text).to.contain('Cart.talks_to_tax (error in suite checkout) TimeoutError');
    expect(text).not.to.contain('adds_item');
    expect(text).to.contain('Failed cases: The report declares a DOCTYPE, which is not read here: download it.');
  };

  it('shows the failing cases with their messages on the first view and the same on a later one', async () => {
    const first = await trailText();
    expectCases(first);
    const later = await trailText();
    expectCases(later);
    const timeless = (text: string) => text.replace(/\(\d+ \w+ ago\)/g, '');
    expect(timeless(later)).to.equal(timeless(first));
  });

  it('cuts each name and message to its bound', async () => {
    const text = await trailText();
    expect(text)
      .to.contain(`${'n'.repeat(300)}…`)
      .and.not.contain('n'.repeat(301));
    expect(text)
      .to.contain(`${'m'.repeat(1000)}…`)
      .and.not.contain('m'.repeat(1001));
  });

  it('reads a later view from what was kept, not from the report again', async () => {
    await trailText();
    const kept = { cases: [{ suite: 'kept', className: '', name: 'kept_case', kind: 'failure', message: 'as it was kept', details: '' }], more: 0 };
    await rawSql(server, [`update junit_failed_cases set failed_cases = '${JSON.stringify(kept)}'`]);
    const text = await trailText();
    expect(text).to.contain('kept_case (failure in suite kept) as it was kept');
    expect(text).not.to.contain('applies_discount');
  });
});
