/**
 * A package whose output fails half-way (an HTTP client that went away): the writer rejects with
 * the output's error, pulls no further record, and closes the attachment it was copying.
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { expect } from 'chai';
import type { Manifest } from './package-format.ts';
import { type PackageRecord, writePackage } from './write-package.ts';

const manifest = { format: 1, organization: 'acme', origin: 'o', tree_size: 100, root_hash: '', selection: {}, exported_at: 1 } as unknown as Manifest;
const leaf = (index: number): PackageRecord => ({ index, leaf: Buffer.from(`{"i":${index}}`), proof: [] });

describe('writePackage when its output fails', () => {
  it('rejects with the output error while a record is being read, and pulls no further record', async () => {
    const out = new PassThrough();
    out.resume();
    let pulled = 0;
    let closed = false;
    let reading: () => void = () => {};
    const isReading = new Promise<void>((resolve) => (reading = resolve));
    async function* records() {
      try {
        for (let index = 0; index < 100; index++) {
          pulled++;
          if (index === 3) {
            // As a database query would: the output fails while the writer waits for this record.
            reading();
            await once(out, 'close');
            await new Promise((resolve) => setImmediate(resolve));
          }
          yield leaf(index);
        }
      } finally {
        closed = true;
      }
    }
    const written = writePackage(out, { manifest, checkpoint: 'c', verifierKey: 'k', records: records() });
    await isReading;
    out.destroy();
    const error = await written.then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(error?.code).to.equal('ERR_STREAM_PREMATURE_CLOSE');
    expect(pulled, 'records pulled').to.equal(4);
    expect(closed, "the records' source was closed").to.equal(true);
  });

  it("closes an attachment's stream it was copying when the output fails", async () => {
    const out = new PassThrough();
    // Nobody reads `out`: the attachment's entry fills up and waits for a drain that never comes.
    let copying: () => void = () => {};
    const isCopying = new Promise<void>((resolve) => (copying = resolve));
    let pushed = 0;
    const attachment = new Readable({
      read() {
        pushed++;
        if (pushed === 8) copying();
        this.push(Buffer.alloc(64 * 1024, pushed));
      },
    });
    // Leaving a for-await over it destroys it with an AbortError: only its closing is awaited.
    const closedAttachment = new Promise<void>((resolve) => attachment.on('error', () => {}).once('close', resolve));
    const record: PackageRecord = { ...leaf(0), attachment: { sha256: 'ab'.repeat(32), size: 64 * 1024 * 1024, open: () => attachment } };
    const written = writePackage(out, { manifest, checkpoint: 'c', verifierKey: 'k', records: [record] });
    await isCopying;
    out.destroy();
    const error = await written.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).to.be.instanceOf(Error);
    await closedAttachment;
    expect(attachment.destroyed).to.equal(true);
  });
});
