// @database
/**
 * Numbering under concurrency: release_number per flow and snapshot_index per environment stay
 * unique and gap-free when many requests arrive at once (on SQLite and, in the PostgreSQL pass,
 * with the row locks of lockForUpdate).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('numbering under concurrency', function () {
  this.timeout(60_000);
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
    await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' } });
    await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } });
  });
  afterEach(() => server.close());

  it('50 parallel approvals get release numbers exactly 1..50, each based on the one before', async () => {
    const answers = await Promise.all(
      range(50).map((i) =>
        server.request('POST', '/api/v2/approvals/acme/app', {
          json: { artifact_fingerprint: sha(`v${i}`), description: `release ${i}`, src_commit_list: [] },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(answers.map(() => 201));
    expect(answers.map((r) => r.body.release_number).sort((a, b) => a - b)).to.deep.equal(range(50));

    const list = (await server.request('GET', '/api/v2/approvals/acme/app?per_page=100')).body as Array<{
      release_number: number;
      base_artifact: string;
      target_artifact: string;
    }>;
    expect(list.map((a) => a.release_number)).to.deep.equal(range(50).reverse());
    const byNumber = new Map(list.map((a) => [a.release_number, a]));
    for (const a of list) expect(a.base_artifact).to.equal(a.release_number === 1 ? '' : byNumber.get(a.release_number - 1)!.target_artifact);
  });

  it('30 parallel reports with distinct artifact sets get snapshot indexes exactly 1..30 and one deployment per new artifact', async () => {
    // Every report runs the shared `base` service and one of its own: base is deployed once, each own service once.
    const answers = await Promise.all(
      range(30).map((i) =>
        server.request('PUT', '/api/v2/environments/acme/prod/report/server', {
          json: { artifacts: [{ digests: { base: sha('base'), [`svc-${i}`]: sha(`svc-${i}`) }, creationTimestamp: 1_763_800_000 }] },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(answers.map(() => 201));
    expect(answers.map((r) => r.body.snapshot_index).sort((a, b) => a - b)).to.deep.equal(range(30));

    const page = (await server.request('GET', '/api/v2/deployments/acme?env_name=prod&per_page=50')).body;
    expect(page.total_count).to.equal(31);
    const deployments = page.deployments as Array<{ fingerprint: string; snapshot_index: number }>;
    expect(deployments.filter((d) => d.fingerprint === sha('base')).map((d) => d.snapshot_index)).to.deep.equal([1]);
    for (const i of range(30))
      expect(
        deployments.filter((d) => d.fingerprint === sha(`svc-${i}`)),
        `svc-${i}`,
      ).to.have.length(1);
    // Each snapshot deployed exactly the service its report added (the first also deployed base).
    expect(
      deployments
        .filter((d) => d.fingerprint !== sha('base'))
        .map((d) => d.snapshot_index)
        .sort((a, b) => a - b),
    ).to.deep.equal(range(30));

    const latest = (await server.request('GET', '/api/v2/environments/acme/prod/snapshots/-1')).body;
    expect(latest.snapshot_index).to.equal(30);
    const env = (await server.request('GET', '/api/v2/environments/acme/prod')).body;
    expect(env.last_changed_at).to.equal(latest.created_at);
  });

  it('20 parallel identical reports make one snapshot: one 201 and nineteen 200', async () => {
    const answers = await Promise.all(
      range(20).map(() =>
        server.request('PUT', '/api/v2/environments/acme/prod/report/server', {
          json: { artifacts: [{ digests: { web: sha('web') }, creationTimestamp: 1 }] },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort((a, b) => a - b)).to.deep.equal([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((r) => r.body.snapshot_index))).to.deep.equal(new Set([1]));
    expect((await server.request('GET', '/api/v2/deployments/acme?env_name=prod')).body.total_count).to.equal(1);
  });

  it('20 parallel reviews of one approval are all kept', async () => {
    await server.request('POST', '/api/v2/approvals/acme/app', { json: { artifact_fingerprint: sha('v1'), description: '', src_commit_list: [] } });
    const answers = await Promise.all(
      range(20).map((i) =>
        server.request('PUT', '/api/v2/approvals/acme/app/1', { json: { state: i === 7 ? 'UNAPPROVED' : 'APPROVED', approved_by: `reviewer-${i}` } }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(answers.map(() => 200));
    const approval = (await server.request('GET', '/api/v2/approvals/acme/app/1')).body;
    expect(approval.approvals).to.have.length(20);
    expect(approval.state).to.equal('UNAPPROVED');
  });
});
