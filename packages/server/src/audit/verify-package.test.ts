import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { fixturePackage, opener, outcome, rewritePackage } from './package-fixture.ts';
import { verifyPackage } from './verify-package.ts';

const flipLastByte = (content: Buffer) => {
  const copy = Buffer.from(content);
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 1;
  return copy;
};
const editJson = (edit: (value: any) => void) => (content: Buffer) => {
  const value = JSON.parse(content.toString('utf8'));
  edit(value);
  return Buffer.from(JSON.stringify(value));
};

describe('audit package: written from a MemoryTree, verified offline', () => {
  let pkg: Awaited<ReturnType<typeof fixturePackage>>;
  let attachments: string[];

  before(async () => {
    pkg = await fixturePackage();
    attachments = [];
    await rewritePackage(pkg.bytes, (name, content) => {
      if (name.startsWith('attachments/')) attachments.push(name);
      return content;
    });
  });

  it('verifies: every record, attachment (stored once per SHA-256), proof and the signature', async () => {
    const verified = await verifyPackage(opener(pkg.bytes), pkg.verifierKey);
    expect({
      records: verified.records,
      attachments: verified.attachments,
      size: verified.checkpoint.size,
      org: verified.manifest.organization,
      key: verified.packageKeyMatches,
    }).to.deep.equal({ records: 9, attachments: 2, size: 14, org: 'acme', key: true });
    expect(attachments).to.have.length(2);
  });

  it('still verifies when packed again in another order (the checkpoint at the end, records reversed)', async () => {
    const reordered = await rewritePackage(
      pkg.bytes,
      (_, content) => content,
      (a, b) => (a < b ? 1 : a > b ? -1 : 0),
    );
    expect(await outcome(reordered, pkg.verifierKey)).to.equal('verified');
  });

  it('fails on a key that did not sign the checkpoint, naming the checkpoint', async () => {
    expect(await outcome(pkg.bytes, pkg.otherKey)).to.equal('no-signature-by-key checkpoint');
  });

  it('fails on one flipped byte of an attachment, naming that attachment', async () => {
    const target = attachments[1]!;
    const tampered = await rewritePackage(pkg.bytes, (name, content) => (name === target ? flipLastByte(content) : content));
    expect(await outcome(tampered, pkg.verifierKey)).to.equal(`attachment-mismatch ${target}`);
  });

  it('fails on a missing attachment, naming the attestation that names it', async () => {
    const dropped = await rewritePackage(pkg.bytes, (name, content) => (name === attachments[1] ? undefined : content));
    expect(await outcome(dropped, pkg.verifierKey)).to.match(/^attachment-missing records\/\d+\/attestation\.json$/);
  });

  it("fails on an attestation's changed view (name, attachment digest, data), naming its file", async () => {
    const edits: Array<(v: any) => void> = [
      (v) => (v.attestation_name = 'lint'),
      (v) => (v.attachment.sha256 = '0'.repeat(64)),
      (v) => (v.description = 'nothing to see'),
      (v) => (v.attestation_id = '99'),
      (v) => (v.log_index = 3),
    ];
    for (const edit of edits) {
      const tampered = await rewritePackage(pkg.bytes, (name, content) => (name === 'records/1/attestation.json' ? editJson(edit)(content) : content));
      expect(await outcome(tampered, pkg.verifierKey), edit.toString()).to.equal('record-mismatch records/1/attestation.json');
    }
  });

  it("fails on a changed row, leaf or proof, and on other kinds' views, naming the part", async () => {
    const cases: Array<[string, (content: Buffer) => Buffer, string]> = [
      ['records/4/row.json', (c) => Buffer.from(c.toString().replace('"build"', '"other"')), 'row-mismatch records/4/row.json'],
      ['records/4/leaf', (c) => Buffer.from(c.toString().replace('"t3"', '"t9"')), 'inclusion-root-mismatch records/4/leaf'],
      ['records/4/proof.json', editJson((p) => p.reverse()), 'inclusion-root-mismatch records/4/leaf'],
      ['records/4/proof.json', editJson((p) => p.pop()), 'proof-length records/4/leaf'],
      ['records/2/trail.json', editJson((v) => (v.user_data = { ticket: 'T-2' })), 'record-mismatch records/2/trail.json'],
      ['records/6/snapshot.json', editJson((v) => v.artifacts.push({ fingerprint: 'a'.repeat(64) })), 'record-mismatch records/6/snapshot.json'],
      ['records/6/deployments.json', editJson((v) => (v[0].fingerprint = 'a'.repeat(64))), 'record-mismatch records/6/deployments.json'],
      ['records/7/approval.json', editJson((v) => (v.target_artifact = 'a'.repeat(64))), 'record-mismatch records/7/approval.json'],
      ['records/8/review.json', editJson((v) => (v.approved_by = 'mallory')), 'record-mismatch records/8/review.json'],
      ['manifest.json', editJson((m) => (m.tree_size = 13)), 'manifest-mismatch manifest.json'],
      ['checkpoint', (c) => Buffer.from(c.toString().replace('\n14\n', '\n13\n')), 'bad-signature checkpoint'],
    ];
    for (const [target, change, expected] of cases) {
      const tampered = await rewritePackage(pkg.bytes, (name, content) => (name === target ? change(content) : content));
      expect(await outcome(tampered, pkg.verifierKey), target).to.equal(expected);
    }
  });

  it('fails on a part outside the layout, a part missing, or bytes that are not a gzip tar', async () => {
    const withExtra = await rewritePackage(pkg.bytes, (_, content) => content, undefined, [['records/2/notes.txt', Buffer.from('hi')]]);
    expect(await outcome(withExtra, pkg.verifierKey)).to.equal('malformed-package records/2/notes.txt');
    const noLeaf = await rewritePackage(pkg.bytes, (name, content) => (name === 'records/2/leaf' ? undefined : content));
    expect(await outcome(noLeaf, pkg.verifierKey)).to.equal('malformed-package records/2/');
    const noCheckpoint = await rewritePackage(pkg.bytes, (name, content) => (name === 'checkpoint' ? undefined : content));
    expect(await outcome(noCheckpoint, pkg.verifierKey)).to.equal('malformed-package checkpoint');
    expect(await outcome(Buffer.from('not a package'), pkg.verifierKey)).to.equal('malformed-package (archive)');
  });

  it('refuses a link among its parts, naming it, rather than reading what it points to', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'checkpoint', type: 'symlink', linkname: '/etc/passwd' });
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    expect(await outcome(gzipSync(Buffer.concat(chunks)), pkg.verifierKey)).to.equal('malformed-package checkpoint');
  });
});
