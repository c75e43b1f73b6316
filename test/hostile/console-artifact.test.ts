// @database
/**
 * The console's artifact page over the largest evidence it shows whole: 25 custom attestations
 * about one artifact, each about 600 KiB of JSON (what a type with rules takes), all counting for
 * it. The page reads each one's data for its view: health answers within 1 s while it is served,
 * and the page stays bounded (each document cut at 20,000 characters). The server is a process
 * of its own, so that the probes' client is not on the event loop it tests.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { call } from '../support/processes.ts';
import { signInTo, textOf } from '../support/console-story.ts';
import { startChildServer, type ChildServer } from './child-server.ts';
import { whileProbingHealth } from './health-probe.ts';

const fingerprint = createHash('sha256').update('big:1').digest('hex');
const documents = 25;

describe('hostile clients: the artifact page over 25 custom documents of 600 KiB', function () {
  this.timeout(600_000);
  let server: ChildServer;
  let cookie = '';
  const send = async (path: string, body: { json?: unknown; form?: FormData }) => {
    const res = await call(server.url, server.token, 'POST', path, body);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
  };
  before(async () => {
    server = await startChildServer();
    const type = new FormData();
    type.append('data_json', JSON.stringify({ name: 'big', evaluator: { content_type: 'jq', rules: ['.ok == true'] } }));
    await send('/api/v2/custom-attestation-types/acme', { form: type });
    await send('/api/v2/artifacts/acme/app', {
      json: {
        fingerprint,
        filename: 'big',
        git_commit: 'a'.repeat(40),
        git_commit_info: null,
        build_url: 'https://ci.example.com/1',
        commit_url: 'https://git.example.com/c',
        template_reference_name: 'big',
        trail_name: 't1',
      },
    });
    // Many short strings: the shape whose parsing and writing cost most per byte.
    const data = { ok: false, items: Array.from({ length: 25_000 }, (_, i) => `<script>${i}</script>`) };
    expect(JSON.stringify(data).length).to.be.within(550 * 1024, 640 * 1024);
    for (let i = 0; i < documents; i++) {
      const form = new FormData();
      form.append('data_json', JSON.stringify({ attestation_name: `big-${i}`, target_artifacts: ['big'], type_name: 'big', attestation_data: data }));
      await send('/api/v2/attestations/acme/app/trail/t1/custom', { form });
    }
    cookie = await signInTo(server, server.token);
  });
  after(() => server?.close());

  for (const view of ['first view', 'later view']) {
    it(`${view}: health answers within 1 s, and the page shows each document cut, with why it is not compliant`, async () => {
      const { result, slowestMs, probes } = await whileProbingHealth(server, async () => {
        const res = await fetch(`${server.url}/ui/acme/artifacts/${fingerprint}`, { headers: { cookie } });
        return { status: res.status, html: await res.text() };
      });
      expect(slowestMs, `the slowest of ${probes} health probes (ms)`).to.be.below(1000);
      expect(result.status).to.equal(200);
      expect(result.html.length, 'the page (characters)').to.be.below(2 * 1024 * 1024);
      const text = textOf(result.html);
      expect(text.match(/Not compliant: rule \.ok == true is false \(false\)/g)).to.have.length(documents);
      expect(text.match(/more characters \(GET \/attestations/g)).to.have.length(documents);
      expect(result.html).not.to.contain('<script>0</script>');
    });
  }
});
