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

/** The largest JSON or text part read whole (an API view of an attestation of the largest data). */
export const maxPartBytes = 64 * 1024 * 1024;

/**
 * Calls `each` on every regular file of the gzip tar `stream` (folders skipped; links and other
 * kinds refused) until it returns 'stop'. Names lose a leading `./`.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing means "go on"
export async function eachEntry(stream: Readable, each: (name: string, entry: Readable) => Promise<void | 'stop'>): Promise<void> {
  const extract = tar.extract();
  const reading = pipeline(stream, createGunzip(), extract).catch((error: Error) => {
    if (!stopped) throw new PackageVerificationError('malformed-package', '(archive)', `is not a gzip tar: ${error.message}`);
  });
  let stopped = false;
  try {
    for await (const entry of extract) {
      const name = entry.header.name.replace(/^\.\//, '');
      if (entry.header.type === 'directory') {
        await drain(entry as unknown as Readable);
        continue;
      }
      if (entry.header.type !== 'file' && entry.header.type !== 'contiguous-file')
        throw new PackageVerificationError('malformed-package', name, `is a ${entry.header.type}, not a file`);
      if ((await each(name, entry as unknown as Readable)) === 'stop') {
        stopped = true;
        stream.destroy();
        return;
      }
    }
  } catch (error) {
    stopped = true;
    stream.destroy();
    if (error instanceof PackageVerificationError) throw error;
    throw new PackageVerificationError('malformed-package', '(archive)', `is not a gzip tar: ${(error as Error).message}`);
  }
  await reading;
}

/** `entry` whole, at most `maxPartBytes`: a larger part fails the package, named. */
export async function readWhole(name: string, entry: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry) {
    size += (chunk as Buffer).length;
    if (size > maxPartBytes) throw new PackageVerificationError('malformed-package', name, `is larger than ${maxPartBytes} bytes`);
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
