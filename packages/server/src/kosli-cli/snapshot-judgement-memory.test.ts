// @database
/**
 * A snapshot read judged by policies remembers what it worked out by the ids of the records it
 * judged (domain/judgement-memory.ts), not by the facts' text: read again with nothing changed it
 * answers the same verdict, and every input of the evaluation that can change without a new id
 * changes the verdict on the next read of the same snapshot: a new attestation, the flow's tags,
 * the trail's compliance (its flow's template), a new policy version; an allow-list entry the
 * artifact's compliance. Two databases in one process with the same ids each judge their own.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { registryArtifact, registryImage, registryPod, sha256Of } from '../../../../test/support/fleet.ts';
import { cliSucceeds, sendAsCli, type CliCall } from './go-wire.ts';

const schema = '_schema: https://kosli.com/schemas/policy/environment/v1\n\nartifacts:\n';
const gate = `${schema}  provenance:\n    required: true\n  trail-compliance:\n    required: true\n  attestations:\n    - name: scan\n      type: generic\n    - name: review\n      type: generic\n      if: \${{ flow.tags.risk == "high" }}\n`;
const gateWithoutTrails = `${schema}  provenance:\n    required: true\n  attestations:\n    - name: scan\n      type: generic\n`;

interface Read {
  compliant: boolean;
  leaf: number | null;
  versions: number[];
}

describe('A judged snapshot read remembers its verdicts by record ids, and judges anew whatever they follow from', function () {
  this.timeout(120_000);
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  /** The call as the CLI sends it, which must succeed. */
  async function ok(server: TestServer, call: Omit<CliCall, 'token'>) {
    const answer = await sendAsCli(server.url, { token: server.token, ...call });
    if (!cliSucceeds(answer.status)) throw new Error(`${call.method} ${call.path} answered ${answer.status}: ${answer.text}`);
    return answer;
  }
  const attest = (server: TestServer, content: Record<string, unknown>) =>
    ok(server, { method: 'POST', path: '/api/v2/attestations/acme/shop/trail/b1/generic', form: [{ type: 'field', name: 'data_json', content }] });
  const putPolicy = (server: TestServer, yaml: string) =>
    ok(server, {
      method: 'PUT',
      path: '/api/v2/policies/acme',
      form: [
        { type: 'field', name: 'payload', content: { name: 'gate', description: '', comment: '', type: 'env' } },
        { type: 'file', name: 'policy_file', filename: 'gate.yml', bytes: Buffer.from(yaml) },
      ],
    });
  /** shop:1 reported in trail b1 of flow shop, an attestation of it named `scan` (or another name), the gate attached to prod, and prod running it. */
  async function story(server: TestServer, scan: boolean, name = 'scan') {
    await ok(server, { method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } });
    await ok(server, {
      method: 'PUT',
      path: '/api/v2/trails/acme/shop',
      form: [{ type: 'field', name: 'data_json', content: { name: 'b1', description: '' } }],
    });
    await ok(server, {
      method: 'POST',
      path: '/api/v2/artifacts/acme/shop',
      payload: registryArtifact('shop:1', 'b1'),
    });
    await attest(server, { artifact_fingerprint: sha256Of('shop:1'), attestation_name: name, is_compliant: scan });
    await putPolicy(server, gate);
    await ok(server, { method: 'POST', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['gate'] } });
    await ok(server, { method: 'PUT', path: '/api/v2/environments/acme/prod/report/K8S', payload: { artifacts: [registryPod('p0', 'shop:1')] } });
  }
  /** The latest snapshot as `assert snapshot` reads it: shop:1's compliance and verdict leaf, and the policy versions applied. */
  const read = async (server: TestServer): Promise<Read> => {
    const json = (await ok(server, { method: 'GET', path: '/api/v2/snapshots/acme/prod/-1' })).json;
    const [artifact] = json.artifacts as { compliant: boolean; verdict_log_index: number | null }[];
    return { compliant: artifact!.compliant, leaf: artifact!.verdict_log_index, versions: json.applied_policies.map((p: { version: number }) => p.version) };
  };

  it('the same read answers the same verdict; an attestation, the tags, the trail’s compliance and a policy version each make a new one', async () => {
    servers.push(await startTestServer());
    const server = servers[0]!;
    await story(server, false);
    const first = await read(server);
    expect(first).to.deep.include({ compliant: false, versions: [1] });
    expect(first.leaf).to.be.a('number');
    // Read again as it was judged: the same verdict, recorded once.
    expect(await read(server)).to.deep.equal(first);

    // A new scan (a new attestation id counted instead of the old one) passes it.
    await attest(server, { artifact_fingerprint: sha256Of('shop:1'), attestation_name: 'scan', is_compliant: true });
    const scanned = await read(server);
    expect(scanned.compliant).to.equal(true);

    // The flow's tags (no new id): a high risk asks for a review it lacks.
    await ok(server, { method: 'PATCH', path: '/api/v2/tags/acme/flow/shop', payload: { set_tags: { risk: 'high' }, remove_tags: [] } });
    const tagged = await read(server);
    expect(tagged.compliant).to.equal(false);
    await attest(server, { attestation_name: 'review', is_compliant: true });
    const reviewed = await read(server);
    expect(reviewed.compliant).to.equal(true);

    // The trail's compliance (no new attestation): its flow's template now asks for a lint it lacks.
    await ok(server, { method: 'PUT', path: '/api/v2/flows/acme', payload: { name: 'shop', description: '', visibility: 'private', template: ['lint'] } });
    const untemplated = await read(server);
    expect(untemplated.compliant).to.equal(false);

    // An allow-list entry makes it compliant; its verdict still says what the policy found.
    const allowed = await ok(server, {
      method: 'PUT',
      path: '/api/v2/allowlists/acme/prod',
      payload: { artifact_fingerprint: sha256Of('shop:1'), artifact_name: registryImage('shop:1'), description: 'vendor image' },
    });
    expect(allowed.status).to.equal(201);
    expect(await read(server)).to.deep.equal({ ...untemplated, compliant: true });

    // A new version of the policy (trail compliance no longer asked): a new verdict, version 2 applied.
    await putPolicy(server, gateWithoutTrails);
    const versioned = await read(server);
    expect(versioned.versions).to.deep.equal([2]);

    const leaves = [first, scanned, tagged, reviewed, untemplated, versioned].map((r) => r.leaf);
    expect(new Set(leaves).size, JSON.stringify(leaves)).to.equal(leaves.length);
    // Each read again answers what it answered.
    expect(await read(server)).to.deep.equal({ ...versioned, compliant: true });
  });

  it('two databases in one process, the same ids and compliance, the attestation a scan in one and a lint in the other: each judges its own', async () => {
    servers.push(await startTestServer(), await startTestServer());
    const [, passing, failing] = servers as [TestServer, TestServer, TestServer];
    await story(passing, true);
    await story(failing, true, 'lint');
    for (let turn = 0; turn < 2; turn++) {
      expect((await read(passing)).compliant).to.equal(true);
      expect((await read(failing)).compliant).to.equal(false);
    }
  });
});
