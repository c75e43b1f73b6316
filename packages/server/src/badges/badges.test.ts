// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { runTrailproof } from '../../../../test/support/processes.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a badge says: the text of its `<title>` ("label: message"). */
const titleOf = (svg: string) => /<title>([^<]*)<\/title>/.exec(svg)?.[1];
const widthOf = (svg: string) => Number(/^<svg[^>]*\swidth="(\d+(?:\.\d+)?)"/.exec(svg)?.[1]);

describe('badges: GET /badges/{org}/flows/{flow}.svg and /badges/{org}/environments/{env}.svg', () => {
  let server: TestServer;
  const ok = (res: { status: number; body: unknown }) => expect([200, 201], JSON.stringify(res.body)).to.include(res.status);
  /** A trail of `flow` whose one JUnit attestation has `failures` failed tests, for the artifact `image`. */
  const trail = async (flow: string, name: string, failures: number, image = `${flow}:${name}`) => {
    ok(await server.request('PUT', `/api/v2/trails/acme/${flow}`, { form: { data_json: JSON.stringify({ name }) } }));
    const data = {
      attestation_name: 'unit',
      junit_results: [{ name: 's', failures, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }],
      artifact_fingerprint: sha(image),
    };
    ok(await server.request('POST', `/api/v2/attestations/acme/${flow}/trail/${name}/junit`, { form: { data_json: JSON.stringify(data) } }));
  };
  const report = async (env: string, image: string) => {
    const pod = { podName: `${env}-1`, namespace: env, digests: { [image.split(':')[0]!]: sha(image) }, creationTimestamp: 1_763_800_000 };
    ok(await server.request('PUT', `/api/v2/environments/acme/${env}/report/K8S`, { json: { artifacts: [pod] } }));
  };
  const badge = (path: string, token: string | null = null) => server.request('GET', `/badges/${path}`, { token });
  const makePublic = async (env: string, isPublic: boolean) => {
    const organization = await server.store.findOrganization('acme');
    expect(await server.store.setEnvironmentBadgePublic(Number(organization!.id), env, isPublic, Date.now() / 1000)).to.equal(true);
  };

  before(async () => {
    server = await startTestServer();
    ok(await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'open', description: 'public', visibility: 'public' } }));
    ok(await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'closed', description: 'private', visibility: 'private' } }));
    ok(await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'open-and-empty-with-a-long-name', visibility: 'public' } }));
    ok(await server.request('PUT', '/api/v2/flows/globex', { json: { name: 'theirs', visibility: 'public' }, token: server.otherToken }));
    await trail('open', 'first', 0, 'api:1');
    await trail('closed', 'first', 0);
    for (const env of ['prod', 'staging', 'new']) ok(await server.request('PUT', '/api/v2/environments/acme', { json: { name: env, type: 'K8S' } }));
    await report('prod', 'api:1');
    await report('staging', 'web:9');
  });
  after(() => server.close());

  it("answers a public flow's badge without a token: the latest trail's compliance, as an SVG with its title, cached a minute", async () => {
    const res = await badge('acme/flows/open.svg');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/svg+xml');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=60');
    expect(res.headers.get('content-security-policy')).to.include("default-src 'none'");
    expect(res.body).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*role="img"/);
    expect(titleOf(res.body)).to.equal('open: compliant');
    expect(res.body).to.include('fill="#4b0"');
    expect(res.body).not.to.match(/<script|\son\w+=/i);

    await trail('open', 'second', 2);
    const failing = await badge('acme/flows/open.svg');
    expect(titleOf(failing.body)).to.equal('open: non-compliant');
    expect(failing.body).to.include('fill="#dd4343"');
    const empty = await badge('acme/flows/open-and-empty-with-a-long-name.svg');
    expect(titleOf(empty.body)).to.equal('open-and-empty-with-a-long-name: no trails');
    // Text widths are measured: a longer label makes a wider badge.
    expect(widthOf(empty.body)).to.be.greaterThan(widthOf(failing.body) + 100);
  });

  it("answers the same 404 for a private flow without a token, another organisation's token, a bad token and a name that does not exist", async () => {
    const unknown = await badge('acme/flows/nothing.svg');
    expect(unknown.status).to.equal(404);
    const answers = [
      await badge('acme/flows/closed.svg'),
      await badge('acme/flows/closed.svg', server.otherToken),
      await badge('acme/flows/closed.svg', 'tp_AAAAAAAAAAAAAAAA_' + 'A'.repeat(43)),
      await badge('acme/flows/closed.svg', 'not a token'),
      await badge('nobody/flows/open.svg'),
      await badge('acme/flows/open'),
      await badge('acme/flows/..svg'),
      await badge('acme/environments/open.svg'),
    ];
    for (const res of answers) {
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal(unknown.body);
      expect(res.headers.get('content-type')).to.equal(unknown.headers.get('content-type'));
    }
    expect(unknown.body).to.deep.equal({ message: 'No such badge' });
  });

  it("answers a private flow's badge to a token of its organisation (a read-only one will do), cached privately", async () => {
    const res = await badge('acme/flows/closed.svg', server.readToken);
    expect(res.status).to.equal(200);
    expect(titleOf(res.body)).to.equal('closed: compliant');
    expect(res.headers.get('cache-control')).to.equal('private, max-age=60');
    expect((await badge('globex/flows/theirs.svg')).status).to.equal(200);
  });

  it("answers an environment's badge without a token only once made public, and 404 again once private", async () => {
    const before = await badge('acme/environments/prod.svg');
    expect(before.status).to.equal(404);
    expect(before.body).to.deep.equal((await badge('acme/environments/none.svg')).body);
    expect(titleOf((await badge('acme/environments/prod.svg', server.token)).body)).to.equal('prod: compliant');

    for (const env of ['prod', 'staging', 'new']) await makePublic(env, true);
    await makePublic('prod', true); // twice is still public
    const prod = await badge('acme/environments/prod.svg');
    expect(prod.status).to.equal(200);
    expect(prod.headers.get('content-type')).to.equal('image/svg+xml');
    expect(prod.headers.get('cache-control')).to.equal('public, max-age=60');
    expect(titleOf(prod.body)).to.equal('prod: compliant');
    // web:9 was attested by no trail: not compliant; `new` never reported.
    expect(titleOf((await badge('acme/environments/staging.svg')).body)).to.equal('staging: non-compliant');
    expect(titleOf((await badge('acme/environments/new.svg')).body)).to.equal('new: not reported');
    // A public badge of acme's says nothing to another organisation's name.
    expect((await badge('globex/environments/prod.svg')).status).to.equal(404);

    await makePublic('staging', false);
    expect((await badge('acme/environments/staging.svg')).status).to.equal(404);
    expect((await badge('acme/environments/prod.svg')).status).to.equal(200);
  });

  it('takes a style among those of shields.io and refuses another with a 400 that names it', async () => {
    const square = await badge('acme/flows/open.svg?style=flat-square');
    expect(square.status).to.equal(200);
    expect(square.body).not.to.include('linearGradient');
    const bad = await badge('acme/flows/open.svg?style=%3Cscript%3E');
    expect(bad.status).to.equal(400);
    expect(bad.body.errors).to.have.property('style');
  });

  it('trailproof badge public and private set the opt-in on the database the server reads', async function () {
    this.timeout(60_000);
    // The CLI reaches the test's own PostgreSQL schema through libpq's PGOPTIONS, which node-postgres reads.
    const env = server.schema ? { PGOPTIONS: `-c search_path="${server.schema}"` } : {};
    const cli = (...args: string[]) => runTrailproof([...args, '--database', server.location], env);
    const made = await cli('badge', 'public', '--org', 'acme', '--environment', 'staging');
    expect(made.status, made.stderr).to.equal(0);
    expect(made.stdout).to.equal('The badge of staging is public: /badges/acme/environments/staging.svg\n');
    expect(titleOf((await badge('acme/environments/staging.svg')).body)).to.equal('staging: non-compliant');

    const taken = await cli('badge', 'private', '--org', 'acme', '--environment', 'staging');
    expect(taken.status, taken.stderr).to.equal(0);
    expect((await badge('acme/environments/staging.svg')).status).to.equal(404);

    const unknown = await cli('badge', 'public', '--org', 'acme', '--environment', 'nowhere');
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.equal("trailproof: no environment 'nowhere' in organisation 'acme'\n");
    const missing = await cli('badge', 'public', '--org', 'acme');
    expect(missing.status).to.equal(2);
    expect(missing.stderr).to.include('badge public needs --org ORG and --environment ENV').and.to.include('Usage:');
    const help = await runTrailproof(['badge', 'private', '--help']);
    expect(help.status).to.equal(0);
    expect(help.stdout).to.include('trailproof badge private --org ORG --environment ENV').and.to.include('--database URL');
  });
});
