/**
 * The saxes side of the JUnit reader: decoded text → saxes → ReportBuilder, with every parser
 * buffer bounded (internal-sax.ts decides what reads a document).
 */
import { SaxesParser } from 'saxes';
import { MAX_ATTRIBUTES } from './internal-attributes.ts';
import { CaseHandlerError, ReportBuilder, type BuilderOptions } from './internal-builder.ts';
import { detach } from './internal-strings.ts';
import { explainXmlError } from './internal-xml-errors.ts';
import { JunitReadError, type JunitFileReport } from './types.ts';

/** Bytes decoded (and characters handed to saxes) at a time. */
export const SLICE = 64 * 1024;
/**
 * Longest single piece of parser state (text node, CDATA section, comment, attribute value) kept,
 * unless maxDetailsLength is larger. Small enough that the copies made when cutting stay in V8's
 * young generation (cheap to collect).
 */
const MIN_BUFFER_CAP = 64 * 1024;

/** saxes 6 internals that grow with the input; checked after every write to bound memory. */
interface SaxesBuffers {
  text?: unknown;
  name?: unknown;
  entity?: unknown;
  piTarget?: unknown;
  attribList?: unknown;
}

/** The longest piece of parser state kept (see MIN_BUFFER_CAP). */
export function bufferCap(options: BuilderOptions): number {
  return Math.max(MIN_BUFFER_CAP, options.maxDetails);
}

/** Feeds decoded text to saxes and the builder; throws `JunitReadError` on the first problem. */
export class Feeder {
  private readonly parser = new SaxesParser<{ position: true; xmlns: false }>({ position: true, xmlns: false });
  private readonly builder: ReportBuilder;
  private readonly cap: number;
  private textOn = false;
  private tagLine = 1;
  private tagStart = 0;

  constructor(
    private readonly file: string,
    options: BuilderOptions,
  ) {
    this.builder = new ReportBuilder(file, options);
    this.cap = bufferCap(options);
    const { parser, builder } = this;
    parser.on('error', (err) => {
      throw this.corrupt(explainXmlError(err.message.replace(/^\d+:\d+: /, ''), parser));
    });
    parser.on('doctype', () => {
      throw this.corrupt('DOCTYPE and entity declarations are not allowed in JUnit XML');
    });
    parser.on('opentagstart', () => {
      this.tagLine = parser.line;
      this.tagStart = parser.position;
    });
    parser.on('opentag', (tag) => {
      // An attribute takes at least 5 characters (` a=""`): only a long tag can hold too many.
      // (No `attribute` handler: setting one makes saxes several times slower.)
      if (parser.position - this.tagStart > 4 * MAX_ATTRIBUTES && Object.keys(tag.attributes).length > MAX_ATTRIBUTES) {
        throw this.tooManyAttributes();
      }
      builder.openTag(tag.name, tag.attributes, this.tagLine);
      this.syncText();
    });
    parser.on('closetag', () => {
      builder.closeTag();
      this.syncText();
    });
    parser.on('cdata', (s) => {
      if (builder.wantsText) builder.text(s);
    });
  }

  corrupt(reason: string, line = this.parser.line): JunitReadError {
    const column = this.parser.column + 1;
    return new JunitReadError(`${this.file}:${line}:${column}: corrupt XML: ${reason}`, this.file, 'corrupt', line, column);
  }

  private tooManyAttributes(): JunitReadError {
    return this.corrupt(`more than ${MAX_ATTRIBUTES} attributes on one element`);
  }

  /** saxes only accumulates text nodes while a text handler is set: set it only while wanted. */
  private syncText(): void {
    const want = this.builder.wantsText;
    if (want === this.textOn) return;
    this.textOn = want;
    if (want) this.parser.on('text', (s) => this.builder.text(s));
    else this.parser.off('text');
  }

  write(s: string): void {
    for (let i = 0; i < s.length; i += SLICE) {
      this.guarded(() => this.parser.write(i === 0 && s.length <= SLICE ? s : s.slice(i, i + SLICE)));
      this.bound();
    }
  }

  finish(): JunitFileReport {
    this.guarded(() => this.parser.close());
    return this.builder.finish();
  }

  private guarded(f: () => void): void {
    try {
      f();
    } catch (err) {
      if (err instanceof JunitReadError) throw err;
      if (err instanceof CaseHandlerError) throw err.error;
      throw this.corrupt(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * saxes buffers a whole CDATA section, comment, DOCTYPE, attribute value or (with a text
   * handler) text node before reporting it. Keep the first `cap` characters only (all the reader
   * ever uses); longer names and entity references, and too many attributes, are refused.
   */
  private bound(): void {
    const p = this.parser as unknown as SaxesBuffers;
    // Cut at twice the cap so that the copy is made once per `cap` characters read, not per write.
    if (typeof p.text === 'string' && p.text.length > 2 * this.cap) p.text = detach(p.text.slice(0, this.cap));
    for (const key of ['name', 'entity', 'piTarget'] as const) {
      const v = p[key];
      if (typeof v === 'string' && v.length > 2 * this.cap) throw this.corrupt(`XML name longer than ${2 * this.cap} characters`);
    }
    if (Array.isArray(p.attribList) && p.attribList.length > MAX_ATTRIBUTES) throw this.tooManyAttributes();
  }
}
