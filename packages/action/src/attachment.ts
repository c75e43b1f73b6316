/**
 * The files behind the results, as the attestation's attachment: one file as it is, several
 * as a gzipped tar keeping their paths relative to the workspace.
 */
import { readFile } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import { create as createTar } from 'tar';

/** The server's limit for an attachment. */
export const maxAttachmentBytes = 10 * 1024 * 1024;

export interface Attachment {
  name: string;
  bytes: Uint8Array;
}

export async function buildAttachment(files: readonly string[], workspace: string): Promise<Attachment | null> {
  if (!files.length) return null;
  if (files.length === 1) return { name: basename(files[0]!), bytes: await readFile(files[0]!) };
  const chunks: Buffer[] = [];
  const stream = createTar({ gzip: true, cwd: workspace, portable: true, noMtime: true }, files.map((f) => relative(workspace, f)));
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return { name: 'junit-results.tar.gz', bytes: Buffer.concat(chunks) };
}
