// @database
/**
 * Several server processes on one database (a PostgreSQL database, or a SQLite file): two
 * `trailproof serve` and a third with two workers (`--workers 2`). Concurrent writes through all
 * of them lose nothing, numbering stays unique and gap-free, and every acknowledged write is
 * readable from every process.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testBackend } from '@trailproof/server/testing';
import { createChildDatabase, type ChildDatabase } from './support/child-database.ts';
import { call, runCli, runTrailproof, startServerProcess, type ServerProcess } from './support/processes.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe(`three servers, one of two workers, on one ${testBackend === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`, function () {
  this.timeout(120_000);
  let servers: ServerProcess[] = [];
  let token = '';
  let own: ChildDatabase | undefined;
  let database = '';

  before(async () => {
    own = await createChildDatabase('multi');
    database = own.location;
    token = (await runCli(['token', 'create', '--org', 'acme', '--database', database])).trim();
    servers = await Promise.all([
      startServerProcess(['--database', database]),
      startServerProcess(['--database', database]),
      startServerProcess(['--database', database, '--workers', '2'], {}, 2),
    ]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await own?.remove();
  });

  const on = (i: number) => servers[i % servers.length]!.url;

  it('begins trails and attests with attachments concurrently; every process reads every acknowledged write', async () => {
    const trails = Array.from({ length: 24 }, (_, i) => `build-${i}`);
    const begun = await Promise.all(
      trails.map((name, i) => {
        const form = new FormData();
        form.append('data_json', JSON.stringify({ name, repo_info: { name: 'acme/app', url: 'https://git.example.com/acme/app' } }));
        return call(on(i), token, 'PUT', '/api/v2/trails/acme/app', { form });
      }),
    );
    expect(begun.map((r) => r.status)).to.deep.equal(trails.map(() => 201));

    // The same trails begun again at once through other processes: updates, never errors.
    const again = await Promise.all(
      trails.slice(0, 12).map((name, i) => {
        const form = new FormData();
        form.append('data_json', JSON.stringify({ name, description: 'rerun' }));
        return call(on(i + 1), token, 'PUT', '/api/v2/trails/acme/app', { form });
      }),
    );
    expect(again.map((r) => r.status)).to.deep.equal(trails.slice(0, 12).map(() => 200));

    const attachments = trails.map(() => randomBytes(100 * 1024));
    const attested = await Promise.all(
      trails.map((name, i) => {
        const form = new FormData();
        form.append(
          'data_json',
          JSON.stringify({ attestation_name: 'unit', junit_results: [{ name: 'suite', failures: 0, errors: 0, skipped: 0, total: i + 1, duration: 1 }] }),
        );
        form.append('attachment_file', new Blob([attachments[i]!]), 'junit.xml');
        return call(on(i + 2), token, 'POST', `/api/v2/attestations/acme/app/trail/${name}/junit`, { form });
      }),
    );
    expect(attested.map((r) => r.status)).to.deep.equal(trails.map(() => 201));

    for (let p = 0; p < servers.length; p++) {
      for (const [i, name] of trails.entries()) {
        const trail = await call(on(p), token, 'GET', `/api/v2/trails/acme/app/${name}`);
        expect(trail.status).to.equal(200);
        const [attestation] = trail.body.attestations;
        expect(attestation.junit_results[0].total).to.equal(i + 1);
        expect(attestation.attachment.sha256).to.equal(createHash('sha256').update(attachments[i]!).digest('hex'));
      }
    }
  });

  it('numbers concurrent approvals 1..N with no duplicate or gap, seen alike by every process', async () => {
    const count = 40;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        call(on(i), token, 'POST', '/api/v2/approvals/acme/app', {
          json: { artifact_fingerprint: sha(`artifact-${i}`), description: `release ${i}`, src_commit_list: [] },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(answers.map(() => 201));
    for (let p = 0; p < servers.length; p++) {
      const list = await call(on(p), token, 'GET', `/api/v2/approvals/acme/app?per_page=100`);
      const numbers = (list.body as Array<{ release_number: number }>).map((a) => a.release_number).sort((a, b) => a - b);
      expect(numbers).to.deep.equal(Array.from({ length: count }, (_, i) => i + 1));
    }
  });

  it('numbers concurrent snapshot reports 1..N and records one deployment per new artifact', async () => {
    const created = await call(on(0), token, 'PUT', '/api/v2/environments/acme', { json: { name: 'production', type: 'server', description: 'prod' } });
    expect(created.status).to.equal(201);
    const reports = 20;
    const answers = await Promise.all(
      Array.from({ length: reports }, (_, i) =>
        call(on(i), token, 'PUT', '/api/v2/environments/acme/production/report/server', {
          json: { artifacts: [{ digests: { [`service-${i}`]: sha(`service-${i}`) }, creationTimestamp: 1_763_800_000 + i }] },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(answers.map(() => 201));
    for (let p = 0; p < servers.length; p++) {
      const page = await call(on(p), token, 'GET', '/api/v2/deployments/acme?env_name=production&per_page=50');
      expect(page.body.total_count).to.equal(reports);
      const indexes = (page.body.deployments as Array<{ snapshot_index: number }>).map((d) => d.snapshot_index).sort((a, b) => a - b);
      expect(indexes).to.deep.equal(Array.from({ length: reports }, (_, i) => i + 1));
    }
  });

  it('takes every kind of write at once through all processes: numbering, approval history and the hash chain stay whole', async () => {
    const created = await call(on(1), token, 'PUT', '/api/v2/environments/acme', { json: { name: 'staging', type: 'server' } });
    expect(created.status).to.equal(201);
    // The flow exists before the storm (approvals name it; trails create it).
    const flow = new FormData();
    flow.append('data_json', JSON.stringify({ name: 'mixed-target' }));
    expect((await call(on(0), token, 'PUT', '/api/v2/trails/acme/mixed', { form: flow })).status).to.equal(201);
    const n = 15;
    const writes: Array<Promise<{ kind: string; status: number }>> = [];
    for (let i = 0; i < n; i++) {
      const trail = new FormData();
      trail.append('data_json', JSON.stringify({ name: `mixed-${i}` }));
      writes.push(call(on(i), token, 'PUT', '/api/v2/trails/acme/mixed', { form: trail }).then((r) => ({ kind: 'trail', status: r.status })));
      writes.push(
        call(on(i + 1), token, 'POST', '/api/v2/approvals/acme/mixed', {
          json: { artifact_fingerprint: sha(`mixed-artifact-${i}`), description: `mixed ${i}`, src_commit_list: [] },
        }).then((r) => ({ kind: 'approval', status: r.status })),
      );
      writes.push(
        call(on(i + 2), token, 'PUT', '/api/v2/environments/acme/staging/report/server', {
          json: { artifacts: [{ digests: { [`mixed-${i}`]: sha(`mixed-${i}`) }, creationTimestamp: 1_763_800_000 + i }] },
        }).then((r) => ({ kind: 'report', status: r.status })),
      );
      // The target trail begun again (an update) and attested to, each through another process.
      const again = new FormData();
      again.append('data_json', JSON.stringify({ name: 'mixed-target', description: `run ${i}` }));
      writes.push(
        call(on(i), token, 'PUT', '/api/v2/trails/acme/mixed', { form: again }).then(async (r) => {
          expect(r.status).to.equal(200);
          const form = new FormData();
          form.append(
            'data_json',
            JSON.stringify({ attestation_name: `unit-${i}`, junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] }),
          );
          const attested = await call(on(i + 1), token, 'POST', '/api/v2/attestations/acme/mixed/trail/mixed-target/junit', { form });
          return { kind: 'attestation', status: attested.status };
        }),
      );
    }
    const answers = await Promise.all(writes);
    expect(
      answers.filter((a) => a.status >= 300),
      'failed writes',
    ).to.deep.equal([]);

    for (let p = 0; p < servers.length; p++) {
      const approvals = (await call(on(p), token, 'GET', '/api/v2/approvals/acme/mixed?per_page=100')).body as Array<{
        release_number: number;
        base_artifact: string;
        target_artifact: string;
      }>;
      const byNumber = [...approvals].sort((a, b) => a.release_number - b.release_number);
      expect(byNumber.map((a) => a.release_number)).to.deep.equal(Array.from({ length: n }, (_, i) => i + 1));
      // Each approval's base is the target of the one numbered before it, whatever the interleaving.
      expect(byNumber[0]!.base_artifact).to.equal('');
      for (let i = 1; i < n; i++) expect(byNumber[i]!.base_artifact, `release ${i + 1}`).to.equal(byNumber[i - 1]!.target_artifact);

      const deployments = (await call(on(p), token, 'GET', '/api/v2/deployments/acme?env_name=staging&per_page=50')).body;
      expect((deployments.deployments as Array<{ snapshot_index: number }>).map((d) => d.snapshot_index).sort((a, b) => a - b)).to.deep.equal(
        Array.from({ length: n }, (_, i) => i + 1),
      );
      const target = (await call(on(p), token, 'GET', '/api/v2/trails/acme/mixed/mixed-target')).body;
      expect((target.attestations as unknown[]).length).to.equal(n);

      const verified = await call(on(p), token, 'GET', '/api/v2/verify/acme');
      expect(verified.status).to.equal(200);
      expect(verified.body.ok, JSON.stringify(verified.body)).to.equal(true);
    }
    // The log's tree, appended to by every process, and the checkpoints each one signed agree with the chain.
    const verify = await runTrailproof(['verify', '--org', 'acme', '--database', database]);
    expect(verify.status, verify.stdout + verify.stderr).to.equal(0);
    expect(verify.stdout).to.match(/acme: log ok, \d+ leaves, \d+ checkpoints/);
  });
});
