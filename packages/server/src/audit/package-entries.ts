/**
 * Reading an audit package's gzip tar as a stream: each regular file in turn (folders skipped,
 * links and other kinds refused), parts read whole up to a bound. Anything that is not a gzip tar
 * fails as the package's `(archive)`.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { PackageVerificationError } from './package-format.ts';

const mib = 1024 * 1024;

/**
 * The most bytes each kind of part may have when read whole: far above what the server writes
 * (request bodies are at most 1 MiB, so rows and views stay a few MiB), low enough that the parts a
 * record may hold at once stay a bounded amount of memory.
 */
export const partLimits = { json: 16 * mib, leaf: mib, proof: 64 * 1024, header: mib } as const;

/** Not a gzip tar: the one error a broken archive gives, whatever stage found it. */
const notAnArchive = (error: Error) => new PackageVerificationError('malformed-package', '(archive)', `is not a gzip tar: ${error.message}`);

/**
 * Calls `each` on every regular file of the gzip tar `stream` (folders skipped; links and other
 * kinds refused) until it returns 'stop'. Names lose a leading `./`. Rejects with a
 * PackageVerificationError, never leaving a rejection unobserved.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing means "go on"
export async function eachEntry(stream: Readable, each: (name: string, entry: Readable) => Promise<void | 'stop'>): Promise<void> {
  const extract = tar.extract();
  // Settles to the pipeline's error (or undefined): observed here at once, so a failure while the loop below is busy, or after it stopped, rejects nothing unseen.
  const reading = pipeline(stream, createGunzip(), extract).then(
    () => undefined,
    (error: Error) => error,
  );
  try {
    for await (const entry of extract) {
      const name = entry.header.name.replace(/^\.\//, '');
      if (entry.header.type === 'directory') {
        await drain(entry as unknown as Readable);
        continue;
      }
      if (entry.header.type !== 'file' && entry.header.type !== 'contiguous-file')
        throw new PackageVerificationError('malformed-package', name, kindOf(entry.header));
      if (isSparse(entry.header)) throw new PackageVerificationError('malformed-package', name, sparse);
      if ((await each(name, entry as unknown as Readable)) === 'stop') {
        stream.destroy();
        extract.destroy();
        return;
      }
    }
  } catch (error) {
    stream.destroy();
    extract.destroy();
    if (error instanceof PackageVerificationError) throw error;
    throw notAnArchive((await reading) ?? (error as Error));
  }
  const failed = await reading;
  if (failed) throw notAnArchive(failed);
}

const sparse = 'is a sparse file (GNU tar --sparse), which audit packages never contain: every part is a regular file';

/** Why an entry that is not a regular file is refused: tar-stream gives GNU's sparse entries (type S) no type, nor GNU's rarer kinds. */
function kindOf(header: tar.Header): string {
  if (header.type === null || header.type === undefined)
    return 'is a sparse file (GNU tar type S) or another GNU tar special entry, which audit packages never contain: every part is a regular file';
  return `is a ${header.type}, not a regular file`;
}

/** A sparse file in the PAX form (GNU sparse 0.1 and 1.0): a regular entry whose PAX header says it is sparse. */
const isSparse = (header: tar.Header) => Object.keys(header.pax ?? {}).some((key) => key.startsWith('GNU.sparse.'));

/** `entry` whole, at most `maxBytes`: a larger part fails the package, named. */
export async function readWhole(name: string, entry: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new PackageVerificationError('malformed-package', name, `is larger than ${maxBytes} bytes, more than any package holds there`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads `entry` to its end, keeping nothing (a part not needed in this pass). */
export async function drain(entry: Readable): Promise<void> {
  for await (const _ of entry) {
    /* skipped */
  }
}
