/**
 * Writes an audit package as a stream: tar-stream's packer through node:zlib's gzip into any
 * writable (a file, an HTTP response). Each entry waits for the packer to drain, and records
 * and attachments are pulled from their source one at a time, so memory stays flat whatever the
 * package's size.
 */
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { canonicalJson } from '../store/queries/chain.ts';
import { encodeProof, type Hash } from '../transparency/index.ts';
import { type LeafType, type Manifest, paths, readmeText } from './package-format.ts';

/** One leaf of the log with its proof and, when it vouches for a stored row, that row and its API view. */
export interface PackageRecord {
  /** The leaf's index in the organisation's log. */
  readonly index: number;
  /** The leaf's exact bytes. */
  readonly leaf: Uint8Array;
  /** Its inclusion proof against the package's checkpoint. */
  readonly proof: readonly Hash[];
  /** The row's digest columns, exactly as the leaf's digest covers them. */
  readonly row?: Record<string, unknown>;
  /** The evidence as the API shows it (kind by the leaf's type). */
  readonly view?: { readonly type: LeafType; readonly body: unknown };
  /** A snapshot's deployments, as the API lists them. */
  readonly deployments?: readonly unknown[];
  /** An attestation's attachment: written once per SHA-256, however many attestations name it. */
  readonly attachment?: Attachment;
}

/** An attachment's bytes, opened only when the package writes them. */
export interface Attachment {
  readonly sha256: string;
  readonly size: number;
  open(): Promise<Readable | AsyncIterable<Uint8Array> | Uint8Array> | Readable | AsyncIterable<Uint8Array> | Uint8Array;
}

/** Leaves `start`.. of the log, one part of a selection's leaf list (`LEAF_LIST_PART` leaves, fewer in the last). */
export interface LeafListPart {
  readonly leafList: { readonly start: number; readonly leaves: readonly Uint8Array[] };
}

/** Everything a package holds, records pulled in leaf order. */
export interface PackageContents {
  readonly manifest: Manifest;
  /** The signed checkpoint note. */
  readonly checkpoint: string;
  /** The verifier key line (note format). */
  readonly verifierKey: string;
  /** The records, and for a selection the parts of the leaf list among them. */
  readonly records: AsyncIterable<PackageRecord | LeafListPart> | Iterable<PackageRecord | LeafListPart>;
}

const newline = Buffer.from('\n');

/**
 * Writes the package to `out` (ended when done); rejects, leaving `out` destroyed, on any failure.
 * When `out` fails first (a client that went away), no further record is pulled from `records`.
 */
export async function writePackage(out: Writable, contents: PackageContents): Promise<{ records: number; attachments: number }> {
  const pack = tar.pack();
  // Watched from the start: `out` can fail while a record is being read from the database, when
  // nothing awaits the pipeline, and a rejection nobody handles ends the process.
  let outputFailed: Error | undefined;
  const piped = pipeline(pack, createGzip(), out).catch((error: Error) => {
    outputFailed = error;
  });
  const mtime = new Date(contents.manifest.exported_at * 1000);
  const header = (name: string, size: number) => ({ name, size, mtime, mode: 0o644, uid: 0, gid: 0, type: 'file' as const });
  // The buffer form's callback runs once the packer took the bytes, after it drained if it had to.
  const file = (name: string, content: string | Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      pack
        .entry(header(name, bytes.length), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (error) => (error ? reject(error) : resolve()))
        .on('error', reject);
    });
  const json = (name: string, value: unknown) => file(name, JSON.stringify(value, null, 2) + '\n');
  let records = 0;
  const written = new Set<string>();
  try {
    await file(paths.readme, readmeText(contents.manifest));
    await json(paths.manifest, contents.manifest);
    await file(paths.key, `${contents.verifierKey.trim()}\n`);
    await file(paths.checkpoint, contents.checkpoint);
    for await (const record of contents.records) {
      // Leaving the loop closes the records' source, so a package nobody reads stops its queries here.
      if (outputFailed) throw outputFailed;
      if ('leafList' in record) {
        // A leaf never holds a raw newline (canonical JSON escapes it), so lines part them.
        const { start, leaves } = record.leafList;
        await file(paths.leafList(start), Buffer.concat(leaves.flatMap((leaf) => [leaf, newline])));
        continue;
      }
      const { index } = record;
      await file(paths.leaf(index), record.leaf);
      await json(paths.proof(index), encodeProof(record.proof));
      // Canonical and without a newline, so that `sha256sum row.json` is the leaf's digest.
      if (record.row) await file(paths.row(index), canonicalJson(record.row));
      if (record.view) await json(paths.view(index, record.view.type), record.view.body);
      if (record.deployments) await json(paths.deployments(index), record.deployments);
      const attachment = record.attachment;
      if (attachment && !written.has(attachment.sha256)) {
        written.add(attachment.sha256);
        const content = await attachment.open();
        // Bytes at hand give their own size: the header must match what is written, whatever the database says.
        const size = content instanceof Uint8Array ? content.length : attachment.size;
        await streamEntry(pack, header(paths.attachment(attachment.sha256), size), content);
      }
      records++;
    }
    pack.finalize();
  } catch (error) {
    pack.destroy(error as Error);
    await piped;
    throw outputFailed ?? error;
  }
  await piped;
  if (outputFailed) throw outputFailed;
  return { records, attachments: written.size };
}

/**
 * Streams `content` into one entry of the packer, chunk by chunk, waiting whenever the entry is
 * full; stops reading `content` (and closes it) once the entry is destroyed.
 */
function streamEntry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0], content: Readable | AsyncIterable<Uint8Array> | Uint8Array): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const sink = pack.entry(header, (error) => (error ? reject(error) : resolve()));
    sink.on('error', reject);
    const copy = async () => {
      for await (const chunk of content instanceof Uint8Array ? [content] : content) {
        // A destroyed entry never drains: waiting for it too would hold `content` open forever.
        if (!sink.write(chunk)) await new Promise<void>((resume) => sink.once('drain', resume).once('close', resume));
        if (sink.destroyed) return;
      }
      sink.end(undefined);
    };
    copy().catch((error: Error) => sink.destroy(error));
  });
}
