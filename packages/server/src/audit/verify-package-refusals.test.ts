/**
 * Packages a careless or hostile hand made (issue 46, findings 6 and 10c), each built here from a
 * sound one: a part twice, records removed, a selection that lies, an attachment no record names,
 * a broken archive given to the library, a sparse file. Each is refused, naming the part.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { fixturePackage, opener, outcome, rewritePackage } from './package-fixture.ts';
import { PACKAGE_FORMAT_1 } from './package-format.ts';
import { verifyPackage } from './verify-package.ts';

const keep = (_: string, content: Buffer) => content;
const without = (drop: (name: string) => boolean) => (name: string, content: Buffer) => (drop(name) ? undefined : content);
const editManifest = (edit: (manifest: any) => void) => (name: string, content: Buffer) => {
  if (name !== 'manifest.json') return content;
  const manifest = JSON.parse(content.toString('utf8'));
  edit(manifest);
  return Buffer.from(JSON.stringify(manifest));
};

/** The parts of a package, by name. */
async function partsOf(bytes: Buffer): Promise<Map<string, Buffer>> {
  const parts = new Map<string, Buffer>();
  await rewritePackage(bytes, (name, content) => {
    parts.set(name, content);
    return content;
  });
  return parts;
}

describe('audit package: what a package must not get away with', () => {
  let selected: Awaited<ReturnType<typeof fixturePackage>>;
  let whole: Awaited<ReturnType<typeof fixturePackage>>;

  before(async () => {
    selected = await fixturePackage();
    whole = await fixturePackage({ extraLeaves: 0, selection: {} });
  });

  it('verifies both kinds as complete: the whole log, and a selection checked against the leaf list', async () => {
    const ofSelection = await verifyPackage(opener(selected.bytes), selected.verifierKey);
    const ofWhole = await verifyPackage(opener(whole.bytes), whole.verifierKey);
    expect([ofSelection.records, ofSelection.checkpoint.size, ofSelection.completeness]).to.deep.equal([9, 14, { proven: true, warnings: [] }]);
    expect([ofWhole.records, ofWhole.checkpoint.size, ofWhole.completeness]).to.deep.equal([9, 9, { proven: true, warnings: [] }]);
  });

  it('refuses a second copy of any part, naming it (tar -x would keep the last)', async () => {
    const parts = await partsOf(whole.bytes);
    const otherManifest = JSON.parse(parts.get('manifest.json')!.toString('utf8'));
    otherManifest.selection = { flow: 'nosuchflow' };
    const copies: Array<[string, Buffer]> = [
      ['manifest.json', Buffer.from(JSON.stringify(otherManifest))],
      ['checkpoint', parts.get('checkpoint')!],
      ['README.md', Buffer.from('# Nothing to see\n')],
      ['key', parts.get('key')!],
      ['./manifest.json', parts.get('manifest.json')!],
    ];
    for (const [name, content] of copies) {
      const twice = await rewritePackage(whole.bytes, keep, undefined, [[name, content]]);
      expect(await outcome(twice, whole.verifierKey), name).to.equal(`malformed-package ${name.replace(/^\.\//, '')}`);
    }
    const leafList = (await partsOf(selected.bytes)).get('leaves/0')!;
    const listTwice = await rewritePackage(selected.bytes, keep, undefined, [['leaves/0', leafList]]);
    expect(await outcome(listTwice, selected.verifierKey)).to.equal('malformed-package leaves/0');
  });

  it('refuses a package of the whole log with a record removed: one folder, the last, all of them', async () => {
    const cases: Array<[string, (name: string) => boolean, string]> = [
      ['records/3', (name) => name.startsWith('records/3/'), 'package-incomplete records/3/'],
      ['the last record', (name) => name.startsWith('records/8/'), 'package-incomplete records/8/'],
      ['every record', (name) => name.startsWith('records/') || name.startsWith('attachments/'), 'package-incomplete records/0/'],
    ];
    for (const [what, drop, expected] of cases) {
      const removed = await rewritePackage(whole.bytes, without(drop));
      expect(await outcome(removed, whole.verifierKey), what).to.equal(expected);
    }
  });

  it("refuses a selection's package with a record removed, or a leaf list cut or changed", async () => {
    const cases: Array<[string, (name: string, content: Buffer) => Buffer | undefined, string]> = [
      ['records/2', without((name) => name.startsWith('records/2/')), 'package-incomplete records/2/'],
      ['the last record', without((name) => name.startsWith('records/8/')), 'package-incomplete records/8/'],
      ['every record', without((name) => name.startsWith('records/') || name.startsWith('attachments/')), 'package-incomplete records/0/'],
      ['the leaf list', without((name) => name.startsWith('leaves/')), 'package-incomplete leaves/0'],
      [
        'the list cut',
        (name, content) => (name === 'leaves/0' ? Buffer.from(content.toString().split('\n').slice(1).join('\n')) : content),
        'leaf-list-mismatch leaves/0',
      ],
      [
        'a listed leaf changed',
        (name, content) => (name === 'leaves/0' ? Buffer.from(content.toString().replace('"t1"', '"t9"')) : content),
        'leaf-list-mismatch leaves/0',
      ],
    ];
    for (const [what, change, expected] of cases) {
      const tampered = await rewritePackage(selected.bytes, change);
      expect(await outcome(tampered, selected.verifierKey), what).to.equal(expected);
    }
  });

  it('refuses a selection that lies: a flow that picks none of its records, or the whole log for a selection', async () => {
    const relabelled = await rewritePackage(
      whole.bytes,
      editManifest((m) => (m.selection = { flow: 'nosuchflow' })),
    );
    expect(await outcome(relabelled, whole.verifierKey)).to.equal('package-incomplete leaves/0');
    const noSuchFlow = await rewritePackage(
      selected.bytes,
      editManifest((m) => (m.selection = { flow: 'nosuchflow' })),
    );
    expect(await outcome(noSuchFlow, selected.verifierKey)).to.equal('outside-selection records/0/');
    const later = await rewritePackage(
      selected.bytes,
      editManifest((m) => (m.selection = { since: 1_700_000_005 })),
    );
    expect(await outcome(later, selected.verifierKey)).to.equal('outside-selection records/0/');
    const wholeLog = await rewritePackage(
      selected.bytes,
      editManifest((m) => (m.selection = {})),
    );
    expect(await outcome(wholeLog, selected.verifierKey)).to.equal('malformed-package leaves/0');
    const odd = await rewritePackage(
      selected.bytes,
      editManifest((m) => (m.selection = { flow: 7 })),
    );
    expect(await outcome(odd, selected.verifierKey)).to.equal('malformed-package manifest.json');
  });

  it('refuses an attachment no record names', async () => {
    const stray = Buffer.from('not evidence of anything');
    const name = `attachments/${createHash('sha256').update(stray).digest('hex')}`;
    for (const pkg of [whole, selected]) {
      const withStray = await rewritePackage(pkg.bytes, keep, undefined, [[name, stray]]);
      expect(await outcome(withStray, pkg.verifierKey)).to.equal(`outside-selection ${name}`);
    }
  });

  it('still verifies a package of format 1, saying plainly that its selection is not proven complete', async () => {
    const old = await fixturePackage({ format: PACKAGE_FORMAT_1 });
    const verified = await verifyPackage(opener(old.bytes), old.verifierKey);
    expect(verified.records).to.equal(9);
    expect(verified.completeness.proven).to.equal(false);
    expect(verified.completeness.warnings.join('\n')).to.match(/does not prove that it holds every leaf of its selection \(since=1700000000\)/);
    const oldWhole = await fixturePackage({ format: PACKAGE_FORMAT_1, extraLeaves: 0, selection: {} });
    const removed = await rewritePackage(
      oldWhole.bytes,
      without((name) => name.startsWith('records/4/')),
    );
    expect(await outcome(removed, oldWhole.verifierKey)).to.equal('package-incomplete records/4/');
  });

  it('rejects a truncated, non-gzip or empty file with an error, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const inputs = [whole.bytes.subarray(0, whole.bytes.length - 100), whole.bytes.subarray(0, 200), Buffer.from('hello'), Buffer.alloc(0)];
      for (const bytes of inputs) expect(await outcome(bytes, whole.verifierKey)).to.equal('malformed-package (archive)');
      // Node reports an unhandled rejection once the microtasks after it ran: a few turns of the loop are enough.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled.map(String)).to.deep.equal([]);
  });

  it('refuses a sparse file, naming it and saying so (GNU type S and the PAX form)', async () => {
    const gnu = await tarOf([{ name: 'records/0/leaf', size: 3, type: 'file' }], (block) => {
      block[156] = 'S'.charCodeAt(0);
      writeChecksum(block);
    });
    expect(await failure(gzipSync(gnu), selected.verifierKey)).to.match(/^records\/0\/leaf: is a sparse file/);
    const paxSparse = await tarOf([{ name: 'checkpoint', size: 3, type: 'file', pax: { 'GNU.sparse.major': '1', 'GNU.sparse.minor': '0' } }]);
    expect(await failure(gzipSync(paxSparse), selected.verifierKey)).to.match(/^checkpoint: is a sparse file/);
  });
});

/** The message of the failure of verifying `bytes`. */
async function failure(bytes: Buffer, key: string): Promise<string> {
  try {
    await verifyPackage(opener(bytes), key);
    return 'verified';
  } catch (error) {
    return (error as Error).message;
  }
}

/** A tar of entries of `size` bytes of `x`; `patch` may change the last entry's header block (the 512 bytes before its data). */
async function tarOf(entries: Array<Partial<tar.Header> & { name: string; size: number }>, patch?: (block: Buffer) => void): Promise<Buffer> {
  const blocks: Buffer[] = [];
  const pack = tar.pack();
  for (const header of entries) pack.entry(header as tar.Header, Buffer.alloc(header.size, 'x'));
  pack.finalize();
  for await (const chunk of pack) blocks.push(Buffer.from(chunk as Buffer));
  const bytes = Buffer.concat(blocks);
  if (patch) {
    const dataBlocks = Math.ceil(entries.at(-1)!.size / 512);
    patch(bytes.subarray(bytes.length - 1024 - (dataBlocks + 1) * 512, bytes.length - 1024 - dataBlocks * 512));
  }
  return bytes;
}

/** A tar header's checksum: the sum of its bytes with the checksum field read as spaces, in octal. */
function writeChecksum(block: Buffer): void {
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
}
