// @database
/**
 * The console's trail page over crafted JUnit reports (issue 46, finding 2): the page read each
 * failing report's XML on the event loop at every view, so five reports of 2 MiB held it for
 * seconds per view and health stopped answering. Five such reports, each built here, are viewed
 * twice: health answers within 1 s during both views, and both show what the reports say. The
 * server is a process of its own, so that the probes' client is not on the event loop it tests.
 */
import { expect } from 'chai';
import { call } from '../support/processes.ts';
import { signInTo, textOf } from '../support/console-story.ts';
import { startChildServer, type ChildServer } from './child-server.ts';
import { whileProbingHealth } from './health-probe.ts';

const reportBytes = 2 * 1024 * 1024 - 512;
const head = '<?xml version="1.0"?>\n<testsuites><testsuite name="crafted" tests="1" failures="1">';
const tail = '</testsuite></testsuites>\n';
/** `unit` repeated between `before` and `after` until the report is about 2 MiB. */
const filled = (before: string, unit: string, after: string) =>
  before + unit.repeat(Math.floor((reportBytes - before.length - after.length) / unit.length)) + after;

const reports: Record<string, string> = {
  // A failing case, then elements nested as deep as the size allows.
  deep: (() => {
    const depth = Math.floor((reportBytes - 300) / 7);
    return `${head}<testcase name="before_the_depths"><failure message="deep"/></testcase><d>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</d>${tail}`;
  })(),
  // One testcase with tens of thousands of attributes, each name different.
  attributes: (() => {
    const parts = [`${head}<testcase name="wide_case"`];
    for (let i = 0, size = parts[0]!.length; size < reportBytes - 200; i++) size += parts[parts.push(` a${i}="x"`) - 1]!.length;
    return `${parts.join('')}><failure message="wide"/></testcase>${tail}`;
  })(),
  // A failure message of 2 MiB of entity-like text, known, numeric and unknown.
  entities: filled(`${head}<testcase name="entity_case"><failure message="`, '&amp;&lt;&#x41;&#65;&foo;', `">x</failure></testcase>${tail}`),
  // Processing instructions all through a failure's text.
  instructions: filled(`${head}<testcase name="instruction_case"><failure message="pi">`, '<?x y?>', `</failure></testcase>${tail}`),
  // A real shape: thousands of failing cases, each with a message and a stack.
  cases: (() => {
    const parts = [head];
    let size = head.length;
    for (let i = 0; size < reportBytes - 300; i++) {
      const c = `<testcase classname="shop.Cart" name="case_${String(i).padStart(5, '0')}"><failure message="expected ${i} but was ${i + 1}" type="AssertionError">at Cart.test.ts:${i}</failure></testcase>\n`;
      parts.push(c);
      size += c.length;
    }
    return parts.join('') + tail;
  })(),
};

describe('hostile clients: the trail page over five crafted JUnit reports of 2 MiB', function () {
  this.timeout(300_000);
  let server: ChildServer;
  let cookie = '';
  const viewTrail = async () => {
    const res = await fetch(`${server.url}/ui/acme/flows/app/trails/t1`, { headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };
  before(async () => {
    server = await startChildServer();
    for (const [name, xml] of Object.entries(reports)) {
      expect(Buffer.byteLength(xml), name).to.be.within(reportBytes - 1024, 2 * 1024 * 1024);
      const form = new FormData();
      const suite = { name: 'crafted', failures: 1, errors: 0, skipped: 0, total: 1, duration: 1, timestamp: null };
      form.append('data_json', JSON.stringify({ attestation_name: name, junit_results: [suite] }));
      form.append('attachment_file', new Blob([xml]), `${name}.xml`);
      const res = await call(server.url, server.token, 'POST', '/api/v2/attestations/acme/app/trail/t1/junit', { form });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    cookie = await signInTo(server, server.token);
  });
  after(() => server?.close());

  /** The part of the page's text about attestation `name`: up to the next attestation's heading. */
  const sectionOf = (text: string, name: string) => {
    const from = text.indexOf(`${name} (junit, #`);
    expect(from, `the page shows attestation ${name}`).to.be.at.least(0);
    const after = from + name.length + ' (junit, #'.length;
    const next = text.slice(after).search(/\w+ \(junit, #|Commit and repository/);
    return text.slice(from, next < 0 ? undefined : after + next);
  };
  const viewed: string[] = [];

  for (const view of ['first view (the reports are read)', 'later view (what was read is kept)']) {
    it(`${view}: health answers within 1 s, and the page shows each report's failed cases or why it could not`, async () => {
      const { result, slowestMs, probes } = await whileProbingHealth(server, viewTrail);
      expect(slowestMs, `the slowest of ${probes} health probes (ms)`).to.be.below(1000);
      expect(result.status).to.equal(200);
      expect(result.html.length, 'the page (characters)').to.be.below(512 * 1024);
      const text = textOf(result.html);
      // The real shape is read: its first 50 cases, and how many more.
      const cases = sectionOf(text, 'cases');
      expect(cases).to.contain('shop.Cart.case_00000 (failure in suite crafted) expected 0 but was 1 at Cart.test.ts:0');
      expect(cases).to.contain('shop.Cart.case_00049').and.not.contain('case_00050');
      expect(cases).to.match(/And \d{4,} more: download the report to see them\./);
      // A crafted one is read within its bounds (its texts cut to theirs), or the page says why not.
      for (const [name, shown] of [
        ['deep', 'before_the_depths'],
        ['attributes', 'wide_case'],
        ['entities', 'entity_case (failure in suite crafted) &<&#x41;&#65;&foo;&<'],
        ['instructions', 'instruction_case'],
      ] as const) {
        const section = sectionOf(text, name);
        const summarised = section.includes(`Failed tests ${shown}`);
        expect(summarised || /Failed cases: The (report|attachment) /.test(section), `${name}: ${section.slice(-300)}`).to.equal(true);
      }
      // Both views show the same.
      viewed.push(text.replace(/\(\d+ \w+ ago\)/g, ''));
      expect(viewed[viewed.length - 1]).to.equal(viewed[0]);
    });
  }
});
