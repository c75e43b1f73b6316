// @database
/** `is_latest` of an attestation read back (by id, by name): what the trail's view says, read from the later ones of its name alone. */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { attestationDetails } from './attestation-details.ts';

describe('attestations read back: is_latest', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
  });
  after(() => server.close());

  const attest = async (name: string, targets?: string[]) => {
    const data = { attestation_name: name, is_compliant: true, ...(targets ? { target_artifacts: targets } : {}) };
    const res = await server.request('POST', '/api/v2/attestations/acme/app/trail/t1/generic', { form: { data_json: JSON.stringify(data) } });
    expect(res.status).to.equal(201);
  };
  const trailAttestations = async (): Promise<Array<{ attestation_id: string; attestation_name: string; is_latest: boolean }>> => {
    const all = [];
    for (let page = 1; ; page++) {
      const res = await server.request('GET', `/api/v2/trails/acme/app/t1?page=${page}&per_page=20`);
      expect(res.status).to.equal(200);
      all.push(...res.body.attestations);
      if (res.body.attestations.length < 20) return all;
    }
  };
  const byId = async (id: string) => {
    const res = await server.request('GET', `/api/v2/attestations/acme?attestation_id=${id}`);
    expect(res.status).to.equal(200);
    return res.body.data[0] as { is_latest: boolean };
  };

  it('says what the trail says of each, across more later ones of the name than one read takes', async () => {
    await attest('scan', ['api']);
    // More later attestations of the name than a page of them (200), each for another artifact:
    // the first stays the latest for `api` until one for `api` comes.
    for (let i = 0; i < 205; i++) await attest('scan', ['web']);
    await attest('lint');
    await attest('lint');
    const before = await trailAttestations();
    const first = before[0]!;
    expect(first).to.include({ attestation_name: 'scan', is_latest: true });
    expect((await byId(first.attestation_id)).is_latest, 'the first scan, the only one for api').to.equal(true);
    await attest('scan', ['api']);
    const after = await trailAttestations();
    expect(after[0]).to.include({ is_latest: false });
    for (const a of [after[0]!, after[1]!, after[205]!, after[206]!, after[207]!, after.at(-1)!])
      expect((await byId(a.attestation_id)).is_latest, `${a.attestation_name} ${a.attestation_id}`).to.equal(a.is_latest);
    expect(after.filter((a) => a.is_latest).map((a) => a.attestation_name)).to.deep.equal(['scan', 'lint', 'scan']);
    const named = await server.request('GET', '/api/v2/attestations/acme/app/trail/t1/lint');
    expect(named.body.map((a: { is_latest: boolean }) => a.is_latest)).to.deep.equal([false, true]);
  });

  it('reads only the later ones of its name: one row for the latest, however many the trail holds', async () => {
    const latestLint = (await trailAttestations()).filter((a) => a.attestation_name === 'lint').at(-1)!;
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    const found = (await server.store.attestationOfOrganization(organizationId, Number(latestLint.attestation_id)))!;
    const read: string[] = [];
    const store = {
      logIndexesOf: server.store.logIndexesOf,
      attestationFactsNamed: async (v: Parameters<typeof server.store.attestationFactsNamed>[0]) => {
        const page = await server.store.attestationFactsNamed(v);
        read.push(`${v.name}: ${page.length}`);
        return page;
      },
    };
    const place = { trailId: found.attestation.trailId, flow: found.flow, trail: found.trail };
    const [detail] = await attestationDetails(store, organizationId, place, [found.attestation], { org: 'acme', apiBase: '/api/v2' });
    expect(detail).to.include({ is_latest: true });
    expect(read, 'rows read, by name').to.deep.equal(['lint: 1']);
  });
});
