// @database
// @alone: bounds the time health takes to answer under hostile input
/**
 * `kosli attest sbom` (CLI v2.41, kosli-dev/cli#1162 and #1168; cmd/kosli/attestSbom.go and
 * internal/sbom/sbom.go as the code index holds them, after 71ac0f30): multipart to `.../system` with
 * `type_name: "sbom"`, `attestation_data {format, original_fingerprint, document {created_at, tools,
 * subject, package_count}}`, the `sbom_format`/`sbom_sha256` annotations, and the SBOM file itself,
 * uncompressed, as the only `attachment_file`. Also: a template that asks for every type, on the
 * trail and per artifact.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from '../../../../test/hostile/health-probe.ts';
import { commitInfo, flowWithTemplateForm, goAttestationFields, repoInfoIn } from './ci-payloads.ts';
import { goDecodeProblems, sendAsCli, type GoType } from './go-wire.ts';

const sha = '5b4a3928170615f4e3d2c1b0a98f3c1e0b9a7d6c';
const fixture = (name: string) => readFileSync(new URL(`./fixtures/sbom/${name}`, import.meta.url));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const GoAttestation: GoType = goAttestationFields;
const imageDigest = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

/** What internal/sbom makes of each fixture (ProcessSBOM), as the CLI sends it. */
const summaries = {
  'shop-cyclonedx-1.6.json': {
    format: 'cyclonedx-1.6',
    document: {
      created_at: '2026-11-30T10:00:00Z',
      tools: ['syft 1.50.0'],
      subject: { name: 'ghcr.io/acme/shop', version: `sha256:${imageDigest}`, purl: `pkg:oci/shop@sha256%3A${imageDigest}`, sha256: imageDigest },
      package_count: 4,
    },
  },
  'shop-spdx-2.3.json': {
    format: 'spdx-2.3',
    document: {
      created_at: '2026-11-30T10:00:00Z',
      tools: ['syft-1.50.0'],
      subject: { name: 'shop', version: '1.4.0', purl: 'pkg:npm/shop@1.4.0', sha256: null },
      package_count: 2,
    },
  },
  'shop-spdx-2.3.spdx': {
    format: 'spdx-2.3',
    document: {
      created_at: '2026-11-30T10:00:00Z',
      tools: ['syft-1.50.0'],
      subject: { name: 'shop', version: '1.4.0', purl: 'pkg:npm/shop@1.4.0', sha256: imageDigest },
      package_count: 1,
    },
  },
  'shop-cyclonedx-1.5.xml': {
    format: 'cyclonedx-1.5',
    document: {
      created_at: '2026-11-30T10:00:00Z',
      tools: ['cyclonedx-maven-plugin 2.9.1'],
      subject: { name: 'shop-api', version: '1.4.0', purl: null, sha256: null },
      package_count: 1,
    },
  },
} as const;

const allTypes = ['pull_request', 'snyk', 'sonar', 'jira', 'custom:scan', 'decision', 'sbom', 'generic', 'junit'];
const template =
  'version: 1\ntrail:\n  attestations:\n' +
  allTypes.map((t, i) => `  - name: t${i}\n    type: ${t}\n`).join('') +
  '  artifacts:\n  - name: image\n    attestations:\n' +
  allTypes.map((t, i) => `    - name: a${i}\n      type: ${t}\n`).join('');

describe('Kosli CLI wire format: attest sbom, and templates asking for every type', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const common = (name: string, targets?: string[]) => ({
    git_commit_info: commitInfo(sha, 'github'),
    repo_info: repoInfoIn('github'),
    attestation_name: name,
    ...(targets ? { target_artifacts: targets } : {}),
  });
  /** attestSbom.go's `attestationForm`: data_json, then the bytes hashed, as `attachment_file` named as the file. */
  const attestSbom = (name: string, file: string, bytes: Uint8Array, data: Record<string, unknown>, flow = 'sboms', targets?: string[]) => {
    const format = String(data.format);
    const payload = {
      ...common(name, targets),
      annotations: { sbom_format: format, sbom_sha256: data.original_fingerprint },
      type_name: 'sbom',
      attestation_data: data,
    };
    return sendAsCli(server.url, {
      method: 'POST',
      path: `/api/v2/attestations/acme/${flow}/trail/${sha}/system`,
      token: server.token,
      form: [
        { type: 'field', name: 'data_json', content: payload },
        { type: 'file', name: 'attachment_file', filename: file, bytes },
      ],
    });
  };
  const asCli = (file: keyof typeof summaries) => ({ ...summaries[file], original_fingerprint: sha256(fixture(file)) });

  it('CycloneDX JSON and XML, SPDX JSON and tag-value: 201 and compliant; the SBOM is the attachment as sent; get attestation reads the summary and what the server read', async () => {
    for (const file of Object.keys(summaries) as Array<keyof typeof summaries>) {
      const answer = await attestSbom(file.replace(/\./g, '-'), file, fixture(file), asCli(file));
      expect(answer.status, `${file}: ${answer.text}`).to.equal(201);
    }
    const stored = new Map((await server.attestations('sboms', sha)).map((a) => [a.name, a]));
    for (const file of Object.keys(summaries)) {
      const a = stored.get(file.replace(/\./g, '-'))!;
      expect([file, a.type, a.compliant, a.attachmentName, a.attachmentSha256]).to.deep.equal([file, 'sbom', true, file, sha256(fixture(file))]);
    }
    const json = stored.get('shop-cyclonedx-1-6-json')!;
    const download = await sendAsCli(server.url, {
      method: 'GET',
      path: `/api/v2/trails/acme/sboms/${sha}/attestations/${json.id}/attachment`,
      token: server.token,
    });
    expect(download.bytes.equals(fixture('shop-cyclonedx-1.6.json'))).to.equal(true);
    const read = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/attestations/acme?attestation_id=${json.id}`, token: server.token });
    expect(goDecodeProblems(read.json.data, [GoAttestation])).to.deep.equal([]);
    expect(read.json.data[0]).to.deep.include({ attestation_type: 'sbom', type_name: 'sbom', attestation_data: asCli('shop-cyclonedx-1.6.json') });
    expect(read.json.data[0].sbom_verification).to.deep.equal({ read: true, format: 'cyclonedx-1.6', package_count: 4, reason: null, differences: [] });
    const xml = await sendAsCli(server.url, {
      method: 'GET',
      path: `/api/v2/attestations/acme/sboms/trail/${sha}/shop-cyclonedx-1-5-xml`,
      token: server.token,
    });
    // The XML form is read for its contents too: its package count is checked against the summary.
    expect(xml.json[0].sbom_verification).to.deep.equal({ read: true, format: 'cyclonedx-1.5', package_count: 1, reason: null, differences: [] });
  });

  it('a summary the document does not bear out is non-compliant and says how; a gzipped file is stored but not read', async () => {
    const file = 'shop-spdx-2.3.json';
    const lying = await attestSbom('lying', file, fixture(file), { ...asCli(file), document: { ...summaries[file].document, package_count: 1 } });
    expect(lying.status, lying.text).to.equal(201);
    const gz = gzipSync(fixture(file));
    expect((await attestSbom('gzipped', `${file}.gz`, gz, { ...asCli(file), original_fingerprint: sha256(gz) })).status).to.equal(201);
    const stored = new Map((await server.attestations('sboms', sha)).map((a) => [a.name, a]));
    expect([stored.get('lying')!.compliant, stored.get('gzipped')!.compliant]).to.deep.equal([false, false]);
    expect((stored.get('lying')!.data as any).sbom_verification.differences).to.deep.equal(['package_count: the document lists 2, the summary says 1']);
    expect((stored.get('gzipped')!.data as any).sbom_verification).to.deep.include({ read: false, reason: 'the file is gzip compressed' });
  });

  it('refuses (400, nothing stored): no SBOM attached, an original_fingerprint that is not the file’s, a format or created_at the CLI never sends', async () => {
    const before = (await server.attestations('sboms', sha)).length;
    const file = 'shop-cyclonedx-1.6.json';
    const noFile = await sendAsCli(server.url, {
      method: 'POST',
      path: `/api/v2/attestations/acme/sboms/trail/${sha}/system`,
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: { ...common('nofile'), type_name: 'sbom', attestation_data: asCli(file) } }],
    });
    expect(noFile.status).to.equal(400);
    expect(noFile.json.errors.attachment_file).to.equal('is required');
    const other = await attestSbom('other', file, fixture(file), { ...asCli(file), original_fingerprint: sha256(Buffer.from('x')) });
    expect(other.status).to.equal(400);
    expect(other.json.message).to.contain('original_fingerprint');
    expect((await attestSbom('format', file, fixture(file), { ...asCli(file), format: 'syft-json' })).status).to.equal(400);
    const badTime = { ...asCli(file), document: { ...summaries[file].document, created_at: '30/11/2026' } };
    expect((await attestSbom('time', file, fixture(file), badTime)).status).to.equal(400);
    expect((await server.attestations('sboms', sha)).length).to.equal(before);
  });

  it('hostile SBOMs: 9 MB of components in JSON and 5 MB in XML, documents nested 100,000 deep and an XML entity bomb are read off the event loop, the health probe answering within 1 s; over 10 MB is refused', async () => {
    const components = Array.from({ length: 60_000 }, (_, i) => ({
      type: 'library',
      name: `pkg-${i}`,
      version: '1.0.0',
      purl: `pkg:npm/pkg-${i}@1.0.0`,
      description: 'x'.repeat(60),
    }));
    const big = Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components }));
    expect(big.length).to.be.within(8 * 1024 * 1024, 10 * 1024 * 1024 - 4096);
    const data = {
      format: 'cyclonedx-1.6',
      original_fingerprint: sha256(big),
      document: { created_at: null, tools: null, subject: null, package_count: 60_000 },
    };
    const large = await whileProbingHealth(server, () => attestSbom('large', 'large.json', big, data));
    expect(large.result.status, large.result.text).to.equal(201);
    expect(large.slowestMs).to.be.below(1000);
    const nested = Buffer.from(`{"bomFormat":"CycloneDX","specVersion":"1.6","components":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const deep = await whileProbingHealth(server, () =>
      attestSbom('deep', 'deep.json', nested, { ...data, original_fingerprint: sha256(nested), document: { ...data.document, package_count: 0 } }),
    );
    expect(deep.result.status, deep.result.text).to.equal(201);
    expect(deep.slowestMs).to.be.below(1000);
    const xmlComponents = components
      .slice(0, 30_000)
      .map(
        (c) =>
          `<component type="library"><name>${c.name}</name><version>1.0.0</version><purl>${c.purl}</purl><description>${c.description.slice(0, 15)}</description></component>`,
      );
    const bigXml = Buffer.from(
      `<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.6" version="1"><components>${xmlComponents.join('\n')}</components></bom>`,
    );
    // Half the JSON one's components: the reading's thread competes for the same cores as the probe.
    expect(bigXml.length).to.be.within(4 * 1024 * 1024, 10 * 1024 * 1024 - 4096);
    const xmlData = { ...data, original_fingerprint: sha256(bigXml), document: { ...data.document, package_count: 30_000 } };
    const largeXml = await whileProbingHealth(server, () => attestSbom('large-xml', 'large.xml', bigXml, xmlData));
    expect(largeXml.result.status, largeXml.result.text).to.equal(201);
    expect(largeXml.slowestMs).to.be.below(1000);
    // Entities declared in a DOCTYPE are never expanded, and elements nested 100,000 deep end the reading: stored, not read.
    const laughs = Buffer.from(
      `<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "${'a'.repeat(1000)}">${Array.from({ length: 9 }, (_, i) => `<!ENTITY e${i + 1} "${`&${i ? `e${i}` : 'a'};`.repeat(10)}">`).join('')}]>` +
        `<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&e9;</name></component></components></bom>`,
    );
    const deepXml = Buffer.from(`<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components>${'<component type="library"><components>'.repeat(100_000)}`);
    for (const [name, bytes] of [
      ['laughs', laughs],
      ['deep-xml', deepXml],
    ] as const) {
      const hostile = await whileProbingHealth(server, () => attestSbom(name, `${name}.xml`, bytes, { ...data, original_fingerprint: sha256(bytes) }));
      expect(hostile.result.status, hostile.result.text).to.equal(201);
      expect(hostile.slowestMs).to.be.below(1000);
    }
    const stored = new Map((await server.attestations('sboms', sha)).map((a) => [a.name, a]));
    expect(stored.get('large')!.compliant).to.equal(true);
    expect((stored.get('large')!.data as any).sbom_verification.package_count).to.equal(60_000);
    expect(typeof stored.get('deep')!.compliant).to.equal('boolean');
    expect([stored.get('large-xml')!.compliant, (stored.get('large-xml')!.data as any).sbom_verification.package_count]).to.deep.equal([true, 30_000]);
    expect((stored.get('laughs')!.data as any).sbom_verification).to.deep.include({
      read: false,
      reason: 'the XML document declares a DOCTYPE, which is not read',
    });
    expect((stored.get('deep-xml')!.data as any).sbom_verification).to.deep.include({ read: false, reason: 'the XML document nests elements deeper than 256' });
    expect([stored.get('laughs')!.compliant, stored.get('deep-xml')!.compliant]).to.deep.equal([false, false]);
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    const tooBig = await attestSbom('huge', 'huge.json', huge, { ...data, original_fingerprint: sha256(huge) });
    expect(tooBig.status).to.be.oneOf([400, 413]);
  });

  it('a template asking for every type (pull_request, snyk, sonar, jira, custom:<name>, decision, sbom, ...) on the trail and per artifact: each is required, and met by its own type', async () => {
    const put = await sendAsCli(server.url, {
      method: 'PUT',
      path: '/api/v2/flows/acme/template_file',
      token: server.token,
      form: flowWithTemplateForm('every-type', template),
    });
    expect(put.status, put.text).to.equal(201);
    const begun = await sendAsCli(server.url, {
      method: 'PUT',
      path: '/api/v2/trails/acme/every-type',
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: { name: sha } }],
    });
    expect(begun.status).to.equal(201);
    const file = 'shop-spdx-2.3.json';
    expect((await attestSbom('t6', file, fixture(file), asCli(file), 'every-type')).status).to.equal(201);
    expect((await attestSbom('a6', file, fixture(file), asCli(file), 'every-type', ['image'])).status).to.equal(201);
    // An sbom where the template asks for a decision is of the wrong type.
    expect((await attestSbom('t5', file, fixture(file), asCli(file), 'every-type')).status).to.equal(201);
    const trail = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/trails/acme/every-type/${sha}`, token: server.token });
    const status = trail.json.compliance_status;
    const byName = (list: Array<{ attestation_name: string }>) => new Map(list.map((s) => [s.attestation_name, s]));
    const onTrail = byName(status.attestations_statuses);
    const onImage = byName(status.artifacts_statuses.image.attestations_statuses);
    expect(allTypes.map((_, i) => (onTrail.get(`t${i}`) as any).attestation_type)).to.deep.equal(allTypes.map((t, i) => (i === 5 ? 'sbom' : t)));
    expect(allTypes.map((_, i) => (onImage.get(`a${i}`) as any).attestation_type)).to.deep.equal(allTypes);
    expect(onTrail.get('t6')).to.deep.include({ status: 'COMPLETE', is_compliant: true });
    expect(onImage.get('a6')).to.deep.include({ status: 'COMPLETE', is_compliant: true });
    expect(onImage.get('a0')).to.deep.include({ status: 'MISSING' });
    expect(status.reasons).to.include("attestation 't5' is of type 'sbom' but the template requires 'decision'");
    expect(status.is_compliant).to.equal(false);
  });
});
