/**
 * What multer does not tell about a multipart body: busboy silently skips a part whose
 * Content-Disposition is missing, not `form-data` or unparsable (a malformed `filename*`), and
 * everything after the closing boundary; multer silently discards a file part without a file
 * name (`filename=""`, none at all with `application/octet-stream`, or one that is only a path).
 * Each would be a 201 that lost a part, so the parser watches the body beside them.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { FieldErrors } from '@trailproof/schema';

/** A file part that reached busboy without a usable file name, read here since multer drops it. */
export interface NamelessFile {
  part: string;
  mimeType: string;
  buffer: Buffer;
  /** More bytes came than busboy's file size limit lets through. */
  truncated: boolean;
}

/** One request's parts as busboy emitted them and as the raw body framed them. */
export interface WatchedParts {
  /** The parts whose nameless files are read. */
  kept: ReadonlySet<string>;
  /** Names of the parts busboy emitted, in order. */
  emitted: string[];
  /** Files without a usable name of the parts listed in `keep`. */
  nameless: NamelessFile[];
  /** Parts, by name, sent with a Content-Transfer-Encoding that busboy passes on undecoded. */
  encoded: Map<string, string>;
  framing: PartFraming;
}

/** The busboy events the watcher listens to (busboy ships no types). */
interface BusboyEvents {
  on(event: 'file', listener: (name: string, stream: Readable, info: { filename?: string; encoding: string; mimeType: string }) => void): unknown;
  on(event: 'field', listener: (name: string, value: string, info: { encoding: string }) => void): unknown;
}

const watched = new WeakMap<IncomingMessage, WatchedParts>();

/** Encodings that mean the bytes are as sent (RFC 7578 deprecates any other). */
const identityEncodings = new Set(['7bit', '8bit', 'binary']);

/**
 * A multer `streamHandler`: feeds the body to busboy as multer would, and records what multer
 * would not report. Nameless files of the parts in `keep` are read, up to what busboy passes.
 */
export function watchingStreamHandler(keep: ReadonlySet<string>) {
  return (req: IncomingMessage, busboy: BusboyEvents & NodeJS.WritableStream) => {
    const parts: WatchedParts = { kept: keep, emitted: [], nameless: [], encoded: new Map(), framing: new PartFraming(req.headers['content-type'] ?? '') };
    watched.set(req, parts);
    busboy.on('field', (name, _value, { encoding }) => {
      parts.emitted.push(name);
      if (!identityEncodings.has(encoding)) parts.encoded.set(name, encoding);
    });
    busboy.on('file', (name, stream, { filename, encoding, mimeType }) => {
      parts.emitted.push(name);
      if (!identityEncodings.has(encoding)) parts.encoded.set(name, encoding);
      if (filename) return;
      const file: NamelessFile = { part: name, mimeType, buffer: Buffer.alloc(0), truncated: false };
      parts.nameless.push(file);
      if (!keep.has(name)) return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (file.truncated = true));
      stream.on('end', () => (file.buffer = Buffer.concat(chunks)));
    });
    req.on('data', (chunk: Buffer) => parts.framing.push(chunk));
    req.pipe(busboy);
  };
}

/** What the watcher saw of `req`'s body; undefined when multer did not parse it. */
export function watchedParts(req: IncomingMessage): WatchedParts | undefined {
  return watched.get(req);
}

/**
 * The parts busboy skipped, each named (by its `name` parameter, else `part N`) with why; empty
 * when every part the body frames was emitted. Parts are matched in order, by name: when the
 * names cannot account for the difference, the body is refused as a whole.
 */
export function skippedParts(parts: WatchedParts): FieldErrors {
  const { framed, afterClose } = parts.framing;
  const errors: FieldErrors = {};
  let next = 0;
  const unmatched: FramedPart[] = [];
  for (const part of framed) {
    if (next < parts.emitted.length && part.name === parts.emitted[next]) next++;
    else unmatched.push(part);
  }
  if (next === parts.emitted.length) for (const part of unmatched) errors[part.label] = skipReason(part.headers);
  else if (framed.length !== parts.emitted.length)
    errors.body = `${framed.length} parts were sent and ${parts.emitted.length} could be read: each part needs a Content-Disposition: form-data header with a name`;
  for (const part of afterClose) errors[part.label] = 'comes after the closing boundary (--boundary--), where nothing is read';
  return errors;
}

function skipReason(headers: string): string {
  const disposition = /^content-disposition:[ \t]*([^\r\n]*)/im.exec(headers)?.[1];
  if (disposition === undefined) return 'has no Content-Disposition header';
  const type = disposition.split(';')[0]!.trim().toLowerCase();
  if (type !== 'form-data') return `has Content-Disposition "${type}", not form-data`;
  return "has a Content-Disposition that cannot be read (a filename* must be charset''percent-encoded text, RFC 7578 and 5987)";
}

interface FramedPart {
  /** The `name` parameter as the header spells it, or undefined. */
  name: string | undefined;
  label: string;
  headers: string;
}

/** Longest header block kept for naming a part (busboy refuses longer ones). */
const maxHeaderBytes = 16 * 1024;

/**
 * Frames parts the way busboy does: a part begins after CRLF `--boundary` CRLF (the body read
 * as if it began with CRLF) and its headers end at an empty line; `--boundary--` closes the
 * body. Parts framed after the close are kept apart, since busboy reads none of them.
 */
export class PartFraming {
  readonly framed: FramedPart[] = [];
  readonly afterClose: FramedPart[] = [];
  private readonly delimiter: Buffer;
  private pending: Buffer = Buffer.from('\r\n');
  private header: Buffer[] | undefined;
  private closed = false;

  constructor(contentType: string) {
    const boundary = /;\s*boundary=(?:"([^"]*)"|([^;\s]+))/i.exec(contentType);
    this.delimiter = Buffer.from(`\r\n--${boundary?.[1] ?? boundary?.[2] ?? ''}`, 'latin1');
  }

  push(chunk: Buffer): void {
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length) {
      if (this.header) {
        data = this.readHeader(data);
        continue;
      }
      const at = data.indexOf(this.delimiter);
      if (at === -1) {
        // A delimiter cut by the chunk's end begins with its CR: keep from there, often nothing.
        const cr = data.indexOf(13, Math.max(0, data.length - this.delimiter.length - 1));
        if (cr !== -1) this.pending = Buffer.from(data.subarray(cr));
        return;
      }
      const after = at + this.delimiter.length;
      if (after + 2 > data.length) {
        this.pending = Buffer.from(data.subarray(at));
        return;
      }
      if (data[after] === 13 && data[after + 1] === 10) {
        this.header = [];
        data = data.subarray(after + 2);
      } else {
        if (data[after] === 45 && data[after + 1] === 45) this.closed = true;
        data = data.subarray(after);
      }
    }
  }

  /** Collects header bytes up to the empty line; returns what follows it. */
  private readHeader(data: Buffer): Buffer {
    const sofar = this.header!.length ? Buffer.concat([...this.header!, data]) : data;
    const end = sofar.subarray(0, 2).equals(Buffer.from('\r\n')) ? 0 : sofar.indexOf('\r\n\r\n');
    if (end === -1) {
      if (sofar.length > maxHeaderBytes + 4) return this.endHeader(sofar.subarray(0, maxHeaderBytes), Buffer.alloc(0));
      this.header = [Buffer.from(sofar)];
      return Buffer.alloc(0);
    }
    return this.endHeader(sofar.subarray(0, end), sofar.subarray(end === 0 ? 2 : end + 4));
  }

  private endHeader(block: Buffer, rest: Buffer): Buffer {
    this.header = undefined;
    const headers = block.toString('utf8');
    const name = /^content-disposition:[^\r\n]*?;[ \t]*name[ \t]*=[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|([^;\s"]+))/im.exec(headers);
    const list = this.closed ? this.afterClose : this.framed;
    const spelled = name ? (name[1] ?? name[2])!.replace(/\\(.)/g, '$1') : undefined;
    list.push({ name: spelled, label: spelled ?? `part ${this.framed.length + this.afterClose.length + 1}`, headers });
    return rest;
  }
}
