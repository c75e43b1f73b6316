/**
 * The machinery of the JUnit reader: bytes → (sniffed encoding) → `TextDecoder` (streaming, or
 * once for a small file read whole) → the plain-XML fast path (internal-plain.ts) or saxes
 * (internal-feeder.ts) → ReportBuilder.
 */
import { TextDecoder } from 'node:util';
import { ReportBuilder, type BuilderOptions } from './internal-builder.ts';
import { sniffEncoding } from './internal-encoding.ts';
import { bufferCap, Feeder, SLICE } from './internal-feeder.ts';
import { openFile, WHOLE_FILE_BYTES, type FileSource } from './internal-file.ts';
import { PlainScanner, readPlain } from './internal-plain.ts';
import type { JunitCase, JunitFileReport } from './types.ts';

/** Options of the read functions. */
export interface JunitReadOptions {
  /** Longest `message` and `details` kept per case, in UTF-16 code units (default 4096). */
  maxDetailsLength?: number;
  /** Failed or errored cases kept in the report's `failures` (default 100); the rest are counted. */
  maxFailures?: number;
  /**
   * Called with every listed test case, in document order, as soon as it is read (a document
   * read whole: once it has been read to the end): for consumers that need every case (the report
   * keeps only failures). An error it throws ends the read and is thrown as it is.
   */
  onCase?: (testCase: JunitCase) => void;
}

export const DEFAULT_MAX_DETAILS = 4096;
export const DEFAULT_MAX_FAILURES = 100;

function count(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, got ${String(n)}`);
  return n;
}

function builderOptions(options: JunitReadOptions | undefined): BuilderOptions {
  return {
    maxDetails: count('maxDetailsLength', options?.maxDetailsLength, DEFAULT_MAX_DETAILS),
    maxFailures: count('maxFailures', options?.maxFailures, DEFAULT_MAX_FAILURES),
    onCase: options?.onCase,
  };
}

/**
 * Reads a whole decoded document: with the plain-XML fast path (internal-plain.ts) if it is at
 * most WHOLE_FILE_BYTES characters long, with saxes where that gives up or the text is longer.
 */
function readDecoded(xml: string, file: string, options: BuilderOptions): JunitFileReport {
  const plain = xml.length <= WHOLE_FILE_BYTES ? readPlain(xml, file, options, bufferCap(options)) : null;
  if (plain !== null) return plain;
  const feeder = new Feeder(file, options);
  feeder.write(xml);
  return feeder.finish();
}

/** Reads a report from decoded text (a leading byte order mark is ignored). */
export function readText(xml: string, file: string, options?: JunitReadOptions): JunitFileReport {
  const checked = builderOptions(options);
  return readDecoded(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml, file, checked);
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Decoders of whole documents, by label: `decode` without `stream` keeps no state between calls. */
const wholeDecoders = new Map<string, TextDecoder>();

/**
 * Reads a report from the whole document's bytes: one sniff, one decode.
 */
function readWhole(file: string, options: BuilderOptions, bytes: Uint8Array): JunitFileReport {
  const sniffed = sniffEncoding(bytes, true);
  if (sniffed.kind === 'unsupported') throw new Feeder(file, options).corrupt(sniffed.reason, 1);
  // With the whole document at hand the sniffer always decides; 'need-more' cannot happen.
  const encoding = sniffed.kind === 'decode' ? sniffed.encoding : 'utf-8';
  let decoder = wholeDecoders.get(encoding);
  if (decoder === undefined) wholeDecoders.set(encoding, (decoder = new TextDecoder(encoding)));
  return readDecoded(decoder.decode(bytes), file, options);
}

/** Reads a report from the whole document's bytes, already in memory. */
export function readBytesWhole(bytes: Uint8Array, file: string, options?: JunitReadOptions): JunitFileReport {
  return readWhole(file, builderOptions(options), bytes);
}

/** Where readStream sends the decoded text. */
interface TextSink {
  write(text: string): void;
  finish(): JunitFileReport;
  corrupt(reason: string, line?: number): Error;
}

/** Thrown by `PlainFeeder` where the document is not plain XML: the caller has saxes read it again. */
class NotPlain extends Error {}

/**
 * A streamed document through the plain-XML fast path (internal-plain.ts), which reads big files
 * at several times saxes's speed until V8 has optimised saxes. Only without `onCase` (cases
 * handed on could not be taken back), and only for a file that can be read again: where the
 * document is not plain (or not well-formed, or not JUnit), it throws `NotPlain` and saxes reads
 * the file again from the start, so errors and every rule stay saxes's.
 */
class PlainFeeder implements TextSink {
  private readonly builder: ReportBuilder;
  private readonly scanner: PlainScanner;

  constructor(file: string, options: BuilderOptions) {
    this.builder = new ReportBuilder(file, options);
    this.scanner = new PlainScanner(this.builder, bufferCap(options));
  }

  write(text: string): void {
    this.read(text, false);
  }

  finish(): JunitFileReport {
    this.read('', true);
    return this.builder.finish();
  }

  corrupt(): Error {
    return new NotPlain();
  }

  private read(text: string, last: boolean): void {
    let plain: boolean;
    try {
      plain = this.scanner.write(text, last);
    } catch {
      plain = false; // the builder refused the document (not JUnit, too deep): saxes says so, with the line
    }
    if (!plain) throw new NotPlain();
  }
}

/** Feeds a byte stream to `feeder`, sniffing the encoding from its first bytes. */
async function readStream(feeder: TextSink, stream: AsyncIterable<Uint8Array>): Promise<JunitFileReport> {
  let head: Uint8Array[] = [];
  let headLength = 0;

  const feed = (decoder: TextDecoder, bytes: Uint8Array): void => {
    for (let i = 0; i < bytes.length; i += SLICE) {
      feeder.write(decoder.decode(bytes.subarray(i, i + SLICE), { stream: true }));
    }
  };
  /** Decides the encoding once the head allows it, then decodes the head. */
  const start = (complete: boolean): TextDecoder | undefined => {
    const bytes = concat(head, headLength);
    const sniffed = sniffEncoding(bytes, complete);
    if (sniffed.kind === 'need-more') return undefined;
    if (sniffed.kind === 'unsupported') throw feeder.corrupt(sniffed.reason, 1);
    const decoder = new TextDecoder(sniffed.encoding);
    head = [];
    feed(decoder, bytes);
    return decoder;
  };

  let decoder: TextDecoder | undefined;
  for await (const chunk of stream) {
    if (decoder) {
      feed(decoder, chunk);
    } else {
      head.push(chunk);
      headLength += chunk.length;
      decoder = start(false);
    }
  }
  decoder ??= start(true);
  feeder.write(decoder?.decode() ?? '');
  return feeder.finish();
}

/** Reads a report from a byte stream, sniffing the encoding from its first bytes. */
export async function readBytes(stream: AsyncIterable<Uint8Array>, file: string, options?: JunitReadOptions): Promise<JunitFileReport> {
  return readStream(new Feeder(file, builderOptions(options)), stream);
}

/**
 * Reads a report from a file: whole if small (see internal-file.ts), else streamed, through the
 * plain-XML fast path first where it applies (see PlainFeeder).
 */
export async function readFile(path: string, options?: JunitReadOptions): Promise<JunitFileReport> {
  const checked = builderOptions(options);
  const read = (source: FileSource) =>
    source.kind === 'whole' ? readWhole(path, checked, source.bytes) : readStream(new Feeder(path, checked), source.stream);
  const source = openFile(path);
  if (source.kind === 'stream' && source.regular && checked.onCase === undefined) {
    try {
      return await readStream(new PlainFeeder(path, checked), source.stream);
    } catch (error) {
      if (!(error instanceof NotPlain)) throw error;
    }
    return read(openFile(path));
  }
  return read(source);
}
