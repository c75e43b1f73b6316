/**
 * A fast path for small reports read whole: the plain XML that test runners write (ASCII names,
 * quoted attributes, the five predefined entities and character references, comments, CDATA)
 * scanned with indexOf and sticky regular expressions instead of saxes.
 *
 * Why: saxes reads one character per method call, which is fast once V8 has optimised it but
 * slow until then, and a build's few thousand 2 KB files are read mostly before that; native
 * string searches are fast from the first file.
 *
 * Safety: anything outside that subset, and anything not well-formed, makes `readPlain` give up
 * (null) and the caller reads the document with saxes, so errors, their lines and every rule
 * stay saxes's. Giving up must leave no trace: the cases meant for `onCase` are held back until
 * the whole document has been read.
 */
import { READ_ATTRIBUTES, type Attributes } from './internal-attributes.ts';
import { ReportBuilder, type BuilderOptions } from './internal-builder.ts';
import type { JunitCase, JunitFileReport } from './types.ts';

const S = '[ \\t\\n]';
const NAME = '[A-Za-z_:][A-Za-z0-9_:.-]*';
/** The XML declaration saxes accepts for XML 1.0 (version, then encoding, then standalone). */
const DECLARATION = new RegExp(
  `<\\?xml${S}+version${S}*=${S}*(["'])1\\.0\\1(?:${S}+encoding${S}*=${S}*(["'])[A-Za-z][A-Za-z0-9._-]*\\2)?` +
    `(?:${S}+standalone${S}*=${S}*(["'])(?:yes|no)\\3)?${S}*\\?>`,
  'y',
);
const TAG_NAME = new RegExp(NAME, 'y');
const ATTRIBUTE = new RegExp(`${S}+(${NAME})${S}*=${S}*(?:"([^<"]*)"|'([^<']*)')`, 'y');
const TAG_END = new RegExp(`${S}*(/?)>`, 'y');
const CLOSE_TAG = new RegExp(`</(${NAME})${S}*>`, 'y');
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/y;
const SPACE_ONLY = /^[ \t\n]*$/;
const TAB_OR_NEWLINE = /[\t\n]/;
const TABS_AND_NEWLINES = /[\t\n]/g;
/** Most attributes on one element the fast path takes (duplicates are found by a linear search). */
const MAX_PLAIN_ATTRIBUTES = 64;
/** Characters XML 1.0 forbids, and CR (which saxes normalises, with its line count). */
const NOT_PLAIN = /[\x00-\x08\x0B-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/**
 * The attributes the builder reads, each mapped to itself: storing under the constant name, not
 * the one just sliced from the document, keeps property stores on V8's fast path.
 */
const READ = new Map<string, (typeof READ_ATTRIBUTES)[number]>(READ_ATTRIBUTES.map((a) => [a, a]));
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Whether xml[from, to) is only spaces, tabs and newlines (without slicing it out). */
function isSpace(xml: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = xml.charCodeAt(k);
    if (c !== 0x20 && c !== 0x0a && c !== 0x09) return false;
  }
  return true;
}

function isXmlChar(c: number): boolean {
  return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/** `raw` with its references replaced, or null where one is not a predefined entity or a valid character. */
function unescape(raw: string): string | null {
  let amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let out = '';
  let from = 0;
  while (amp >= 0) {
    REFERENCE.lastIndex = amp;
    const m = REFERENCE.exec(raw);
    if (m === null) return null;
    let char: string;
    if (m[1] !== undefined) {
      char = PREDEFINED[m[1]] ?? '';
    } else {
      const code = m[2] !== undefined ? Number(m[2]) : parseInt(m[3] ?? '', 16);
      if (!isXmlChar(code)) return null;
      char = String.fromCodePoint(code);
    }
    out += raw.slice(from, amp) + char;
    from = REFERENCE.lastIndex;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}

/** Longest unfinished piece of markup or text carried from one piece to the next (beyond it, saxes reads the document). */
const carryLimit = (cap: number) => 2 * cap + 1024;

/**
 * Feeds a document to `builder` piece by piece (a whole document is one last piece). `write`
 * answers false once the document is not plain or not well-formed (the builder is then to be
 * dropped). A construct that the piece ends in the middle of (a tag, a comment, CDATA, or text
 * not yet followed by `<`) is kept and read with the next piece, up to `carryLimit`. `cap`:
 * longest text, CDATA section or attribute value taken (saxes's reader cuts longer ones; leaving
 * them to it keeps the results the same).
 */
export class PlainScanner {
  /** Text not yet read: the unfinished end of earlier pieces, then the new one. */
  private pending = '';
  private readonly open: string[] = [];
  private sawRoot = false;
  private declarationChecked = false;
  private failed = false;

  constructor(
    private readonly builder: ReportBuilder,
    private readonly cap: number,
  ) {}

  /** Reads what `piece` completes (all of it when `last`); false where the document is not plain. */
  write(piece: string, last = false): boolean {
    if (this.failed) return false;
    if (NOT_PLAIN.test(piece) || !this.scan(this.pending + piece, last)) {
      this.failed = true;
      this.pending = '';
      return false;
    }
    return !last || (this.sawRoot && this.open.length === 0);
  }

  private scan(xml: string, last: boolean): boolean {
    const { builder, cap, open } = this;
    const limit = carryLimit(cap);
    /** A construct from `from` is unfinished: kept for the next piece, or a failure if there is none or it is too long. */
    const unfinished = (from: number): boolean => {
      if (last || xml.length - from > limit) return false;
      this.pending = xml.slice(from);
      return true;
    };
    let i = 0;
    if (!this.declarationChecked) {
      if (!last && xml.length < 5) return unfinished(0);
      if (xml.startsWith('<?xml')) {
        DECLARATION.lastIndex = 0;
        if (!DECLARATION.test(xml)) return unfinished(0);
        i = DECLARATION.lastIndex;
      }
      this.declarationChecked = true;
    }
    while (i < xml.length) {
      const lt = xml.indexOf('<', i);
      if (lt < 0 && !last) {
        // Text not yet followed by `<` may go on in the next piece. Unless it is kept, what is surely
        // whole is checked now, so that long text (a test's output) is not carried: all but the
        // last 16 characters (a `]]>` or a reference may go on), cut before any `&` among them.
        if (!builder.wantsText && open.length > 0 && xml.length - i > 64) {
          let cut = xml.length - 16;
          const amp = xml.lastIndexOf('&', cut - 1);
          if (amp >= cut - 12) cut = amp;
          if (!isSpace(xml, i, cut)) {
            // Two characters past the cut: a `]]>` that begins before it.
            if (xml.slice(i, cut + 2).includes(']]>')) return false;
            const raw = xml.slice(i, cut);
            if (raw.includes('&') && unescape(raw) === null) return false;
          }
          i = cut;
        }
        return unfinished(i);
      }
      const end = lt < 0 ? xml.length : lt;
      // Mostly the indentation between tags: nothing to check or keep unless the text is wanted.
      if (end > i && (builder.wantsText || !isSpace(xml, i, end))) {
        const raw = xml.slice(i, end);
        if (open.length === 0) {
          if (!SPACE_ONLY.test(raw)) return false;
        } else {
          if (raw.includes(']]>')) return false;
          if (builder.wantsText) {
            const text = raw.length > cap ? null : unescape(raw);
            if (text === null) return false;
            builder.text(text);
          } else if (raw.includes('&') && unescape(raw) === null) {
            return false;
          }
        }
      }
      i = end;
      if (lt < 0) break;
      // A tag or section is read only once it is whole (`unfinished` where this piece ends in it).
      const next = xml.charCodeAt(lt + 1);
      if (next === 0x2f) {
        // </name>
        CLOSE_TAG.lastIndex = lt;
        const m = CLOSE_TAG.exec(xml);
        if (m === null) return unfinished(lt);
        if (open.pop() !== m[1]) return false;
        builder.closeTag();
        i = CLOSE_TAG.lastIndex;
      } else if (next === 0x21) {
        if (xml.length - lt < 9 && !last) return unfinished(lt);
        if (xml.startsWith('<!--', lt)) {
          const close = xml.indexOf('-->', lt + 4);
          if (close < 0) return unfinished(lt);
          const body = xml.slice(lt + 4, close);
          if (body.includes('--') || body.endsWith('-')) return false;
          i = close + 3;
        } else if (xml.startsWith('<![CDATA[', lt) && open.length > 0) {
          const close = xml.indexOf(']]>', lt + 9);
          if (close < 0) return unfinished(lt);
          if (builder.wantsText) {
            if (close - (lt + 9) > cap) return false;
            builder.text(xml.slice(lt + 9, close));
          }
          i = close + 3;
        } else {
          return false; // DOCTYPE, or CDATA outside the root: saxes says what is wrong
        }
      } else {
        // <name attr="value" ...> or <name .../>
        if (this.sawRoot && open.length === 0) return false;
        TAG_NAME.lastIndex = lt + 1;
        if (!TAG_NAME.test(xml)) return unfinished(lt);
        const name = xml.slice(lt + 1, TAG_NAME.lastIndex);
        // Only what the builder reads, in a plain object (V8 keeps it in fast mode; none of those
        // names is on Object.prototype).
        const attributes: Attributes = {};
        let at = TAG_NAME.lastIndex;
        const keys: string[] = [];
        for (;;) {
          ATTRIBUTE.lastIndex = at;
          const m = ATTRIBUTE.exec(xml);
          if (m === null) break;
          const key = m[1] ?? '';
          let raw = m[2] ?? m[3] ?? '';
          // Duplicates found by comparing with the names so far (cheaper than a property lookup
          // with a fresh string); a tag with many attributes is left to saxes.
          if (keys.includes(key) || keys.push(key) > MAX_PLAIN_ATTRIBUTES || raw.length > cap) return false;
          // Attribute-value normalisation: a literal tab or newline is a space.
          if (TAB_OR_NEWLINE.test(raw)) raw = raw.replace(TABS_AND_NEWLINES, ' ');
          const value = unescape(raw);
          if (value === null) return false;
          const read = READ.get(key);
          if (read !== undefined) attributes[read] = value;
          at = ATTRIBUTE.lastIndex;
        }
        TAG_END.lastIndex = at;
        const m = TAG_END.exec(xml);
        // The tag (its name, an attribute, its end) may go on in the next piece: read it whole then.
        if (m === null) return unfinished(lt);
        this.sawRoot = true;
        builder.openTag(name, attributes, 0);
        if (m[1] === '/') builder.closeTag();
        else open.push(name);
        i = TAG_END.lastIndex;
      }
    }
    this.pending = '';
    return true;
  }
}

/**
 * Reads a whole plain document, or gives up (null) where saxes must read it. Errors thrown by
 * `onCase` are thrown as they are.
 */
export function readPlain(xml: string, file: string, options: BuilderOptions, cap: number): JunitFileReport | null {
  const { onCase } = options;
  const held: JunitCase[] = [];
  const builder = new ReportBuilder(file, { ...options, onCase: onCase && ((c) => held.push(c)) });
  try {
    if (!new PlainScanner(builder, cap).write(xml, true)) return null;
  } catch {
    return null; // the builder refused the document (not JUnit, too deep): saxes says so, with the line
  }
  if (onCase !== undefined) for (const c of held) onCase(c);
  return builder.finish();
}
