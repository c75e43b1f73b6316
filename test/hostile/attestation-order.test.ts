// @database
/**
 * Which attestation of a name is the latest (issue 46, item 10a). On PostgreSQL's pool an
 * attestation drew its id before it waited for its trail's lock, so one that drew the lower id
 * could commit later, with the later time and the later chain record, and still not be
 * `is_latest`. Within a trail the id is now drawn under the trail's lock and `created_at` never
 * goes back: id order, commit order, chain order and time order agree, and the list shows it.
 */
import { expect } from 'chai';
import pg from 'pg';
import { startTestServer, testBackend, type TestServer } from '@trailproof/server/testing';

interface Shown {
  attestation_id: string;
  attestation_name: string;
  is_latest: boolean;
  created_at: number;
  log_index: number | null;
  user_data: { who: string };
}

describe('hostile clients: the latest attestation of a name', function () {
  this.timeout(60_000);
  let server: TestServer;
  let organizationId: number;
  beforeEach(async () => {
    server = await startTestServer();
    expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' } })).status).to.equal(201);
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't' }) } })).status).to.equal(201);
    organizationId = Number((await server.store.ensureOrganization('acme', 0)).id);
  });
  afterEach(() => server.close());

  const stored = (who: string, at: number) => ({
    organizationId,
    flow: 'app',
    trail: 't',
    name: 'check',
    type: 'generic',
    dataJson: JSON.stringify({ attestation_name: 'check', is_compliant: true, user_data: { who } }),
    artifactFingerprint: null,
    attachment: null,
    compliant: true,
    createdBy: null,
    at,
  });
  const attestOverHttp = (who: string) =>
    server.request('POST', '/api/v2/attestations/acme/app/trail/t/generic', {
      form: { data_json: JSON.stringify({ attestation_name: 'check', is_compliant: true, user_data: { who } }) },
    });
  const shown = async (): Promise<Shown[]> => {
    const trail = await server.request('GET', '/api/v2/trails/acme/app/t');
    expect(trail.status).to.equal(200);
    return trail.body.attestations;
  };

  /** The list in id order agrees with time and chain order, and the one stored last is the latest. */
  const expectAgreement = (list: Shown[], storedLast: string) => {
    const ids = list.map((a) => Number(a.attestation_id));
    expect(ids, 'listed in id order').to.deep.equal([...ids].sort((x, y) => x - y));
    const times = list.map((a) => a.created_at);
    expect(times, 'created_at along the list').to.deep.equal([...times].sort((x, y) => x - y));
    const leaves = list.map((a) => a.log_index!);
    expect(leaves, 'chain (log) order along the list').to.deep.equal([...leaves].sort((x, y) => x - y));
    expect(list.filter((a) => a.is_latest).map((a) => a.user_data.who)).to.deep.equal([storedLast]);
    expect(list.at(-1)!.user_data.who).to.equal(storedLast);
  };

  it('an attestation stored after another with an earlier time is the latest, at the later time', async () => {
    await server.store.appendAttestation(stored('first', 2_000_000_000));
    await server.store.appendAttestation(stored('second', 1_000_000_000));
    const list = await shown();
    expectAgreement(list, 'second');
    expect(list.map((a) => a.created_at)).to.deep.equal([2_000_000_000, 2_000_000_000]);
  });

  it('PostgreSQL: of two transactions on two connections, the one that commits later is the latest', async function () {
    if (testBackend !== 'postgres') this.skip();
    const flow = (await server.store.findFlow(organizationId, 'app'))!;
    const watcher = new pg.Client({ connectionString: server.location });
    await watcher.connect();
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      // The first transaction holds the trail's row (a begin of it again), as a slow request would.
      const first = server.store.transaction(async (tx) => {
        await tx.upsertTrail(flow.id, { name: 't', description: 'begun again' }, null, 1_000_000_000, null);
        holding();
        await released;
        // Its time is earlier than the second's: it was received first.
        await tx.appendAttestation(stored('first', 1_000_000_000));
      });
      // The second, over HTTP on another connection of the pool, arrives once the first holds the
      // trail (sent earlier, it could take the trail first) and must wait for it.
      await held;
      const second = attestOverHttp('second');
      for (;;) {
        const { rows } = await watcher.query("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and state = 'active'");
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      release();
      await first;
      expect((await second).status).to.equal(201);
      expectAgreement(await shown(), 'second');
    } finally {
      await watcher.end();
    }
  });
});
