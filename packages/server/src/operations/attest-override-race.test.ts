// @database
/**
 * An override finds the attestation it overrides and stores itself in one transaction: an
 * attestation of the same name stored by another request right after the override's read (the
 * interleaving a race needs, forced here by the store the handler is given) lands after the
 * override, never between its check and its write.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import type { Store } from '../store/types.ts';
import { attestOverridePlugin } from './attest-override.ts';

type Read = Store['attestationsNamed'];

describe('attest override: the check and the write in one transaction', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const begun = await server.request('PUT', '/api/v2/trails/acme/racy', { form: { data_json: JSON.stringify({ name: 't1' }) } });
    expect(begun.status).to.equal(201);
  });
  after(() => server.close());

  /** The real store, but each read of the override's attestations is followed at once by another request's JUnit attestation of the same name. */
  function interleaved(name: string) {
    const store = server.store;
    let interloper: Promise<unknown> | undefined;
    const interlope = async () => {
      const organization = (await store.findOrganization('acme'))!;
      return store.appendAttestation({
        organizationId: organization.id,
        flow: 'racy',
        trail: 't1',
        name,
        type: 'junit',
        dataJson: JSON.stringify({ attestation_name: name, junit_results: [] }),
        artifactFingerprint: null,
        attachment: null,
        compliant: true,
        createdBy: null,
        at: Math.floor(Date.now() / 1000),
      });
    };
    const thenInterlope =
      (read: Read): Read =>
      async (...args) => {
        const rows = await read(...args);
        interloper ??= interlope();
        return rows;
      };
    const wrapped = new Proxy(store, {
      get(target, key) {
        if (key === 'attestationsNamed') return thenInterlope(target.attestationsNamed);
        if (key === 'transaction')
          return (work: (tx: object) => Promise<unknown>) =>
            target.transaction((tx) =>
              work(new Proxy(tx, { get: (t, k) => (k === 'attestationsNamed' ? thenInterlope(t.attestationsNamed) : t[k as keyof typeof t]) })),
            );
        return target[key as keyof Store];
      },
    });
    return { store: wrapped, interloped: () => interloper };
  }

  it('an attestation of the name stored while the override runs comes after it: the override names the latest one before it', async () => {
    const generic = await server.request('POST', '/api/v2/attestations/acme/racy/trail/t1/generic', {
      form: { data_json: JSON.stringify({ attestation_name: 'review', is_compliant: false }) },
    });
    expect(generic.status).to.equal(201);
    const { store, interloped } = interleaved('review');
    const request = {
      params: { org: 'acme', flow_name: 'racy', trail_name: 't1' },
      data: { attestation_name: 'review', reason: 'signed off by the CAB', new_compliance_status: true, original_attestation_type: 'generic' },
      files: {},
      principal: { tokenId: null as unknown as string },
      now: Math.floor(Date.now() / 1000),
      store,
    };
    const answer = await attestOverridePlugin.handler(request as unknown as Parameters<typeof attestOverridePlugin.handler>[0]);
    expect(answer.status).to.equal(201);
    expect(await interloped()).to.have.property('id');
    const named = (await server.attestations('racy', 't1')).filter((a) => a.name === 'review').sort((x, y) => x.id - y.id);
    expect(named.map((a) => a.type)).to.deep.equal(['generic', 'override:generic', 'junit']);
    // What the override names is the attestation just before it, the one its check found.
    expect((named[1]!.data as { overridden_attestation_id: string }).overridden_attestation_id).to.equal(String(named[0]!.id));
  });
});
