/**
 * The files behind the results, as the attestation's attachment: one file as it is, several
 * as a gzipped tar keeping their paths relative to the workspace. Sizes are checked with `stat`
 * before anything is read, and the tar is given up as soon as it passes the limit, so a large
 * set of reports never sits in memory.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { limits } from '@trailproof/schema';
import tar from 'tar-stream';

/** The server's limit for an uploaded file (attachment or template). */
export const maxUploadBytes = limits.fileBytes;

/**
 * Deflate's best possible ratio is about 1032:1: files whose total passes `limit` times this
 * cannot become a tar.gz within `limit`, however repetitive they are.
 */
const maxDeflateRatio = 1032;

export type AttachmentResult =
  | { kind: 'attached'; name: string; bytes: Uint8Array }
  /** Nothing to attach; `reason` says why, for the warning. */
  | { kind: 'too-large'; reason: string };

const bytes = (n: number) => `${n.toLocaleString('en')} bytes`;
const limitText = (n: number) => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024}MB` : bytes(n));

/** Builds the attachment of `files` (at least one), or says why it would pass `limit` bytes. */
export async function buildAttachment(files: readonly string[], workspace: string, limit = maxUploadBytes): Promise<AttachmentResult> {
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  const total = sizes.reduce((a, b) => a + b, 0);
  const over = `over the ${limitText(limit)} attachment limit`;
  if (files.length === 1) {
    const file = files[0]!;
    if (sizes[0]! > limit) return { kind: 'too-large', reason: `${relative(workspace, file)} is ${bytes(sizes[0]!)}, ${over}` };
    const content = await readFile(file);
    // The file may have grown since stat.
    if (content.byteLength > limit) return { kind: 'too-large', reason: `${relative(workspace, file)} is ${bytes(content.byteLength)}, ${over}` };
    return { kind: 'attached', name: basename(file), bytes: content };
  }
  if (total > limit * maxDeflateRatio) {
    return {
      kind: 'too-large',
      reason: `the ${files.length} JUnit files come to ${bytes(total)}, which no .tar.gz can bring under the ${limitText(limit)} attachment limit`,
    };
  }
  const chunks: Buffer[] = [];
  let length = 0;
  const pack = tar.pack();
  const gzipped = pack.pipe(createGzip());
  // Watched from the start: when the limit stops the reading below, the packing fails and nobody else awaits it.
  const packed = packFiles(pack, files, workspace).catch((error: unknown) => error);
  for await (const chunk of gzipped as AsyncIterable<Buffer>) {
    length += chunk.byteLength;
    if (length > limit) {
      // Stop reading the files: the rest would only be thrown away.
      pack.destroy();
      gzipped.destroy();
      await packed;
      return { kind: 'too-large', reason: `the ${files.length} JUnit files (${bytes(total)}) pass ${limitText(limit)} even as a .tar.gz, ${over}` };
    }
    chunks.push(chunk);
  }
  const failed = await packed;
  if (failed) throw failed;
  return { kind: 'attached', name: 'junit-results.tar.gz', bytes: Buffer.concat(chunks) };
}

/**
 * Each file streamed into its entry, one at a time, under its path relative to the workspace; the
 * header carries no owner, no time and the file's permissions only, so the same files give the same bytes.
 */
async function packFiles(pack: tar.Pack, files: readonly string[], workspace: string): Promise<undefined> {
  for (const file of files) {
    const { size, mode } = await stat(file);
    const entry = pack.entry({ name: relative(workspace, file), size, mode: mode & 0o777, mtime: new Date(0), type: 'file' });
    // Read as far as stat said: a file that grew since is cut there, one that shrank fails its entry.
    await pipeline(size === 0 ? Readable.from([]) : createReadStream(file, { end: size - 1 }), entry);
  }
  pack.finalize();
  return undefined;
}
