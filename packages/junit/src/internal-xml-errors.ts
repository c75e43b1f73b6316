/**
 * saxes's well-formedness messages say little ("disallowed character."): these say what was
 * wrong where, from the parser's state at the failure. Messages not listed stay saxes's.
 */

/** saxes 6 internals read at a failure (never written). */
interface SaxesState {
  state?: number;
  /** The quote of the attribute value being read, else null. */
  q?: number | null;
  chunk?: string;
  /** Index in `chunk` of the character just read. */
  prevI?: number;
  /** The tag just closed by a mismatched close tag. */
  tag?: { name?: string };
}

// saxes's state numbers (lib/saxes.js).
const S_ENTITY = 14;
const S_COMMENT = 17;
const S_CDATA = 20;
const S_ATTRIB_VALUE_QUOTED = 40;
const S_ATTRIB_VALUE_UNQUOTED = 42;
const AMP_ADVICE = "write a literal '&' as &amp;";

/** The text of the current chunk from the last `marker` up to the character just read. */
function since(p: SaxesState, marker: string): string {
  const chunk = p.chunk ?? '';
  const end = p.prevI ?? 0;
  const start = chunk.lastIndexOf(marker, end);
  return start < 0 ? '?' : chunk.slice(start + marker.length, end).slice(0, 100);
}

const codePoint = (c: number) => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;

/** A clearer text for saxes's `reason` (its message without the position). */
export function explainXmlError(reason: string, parser: object): string {
  const p = parser as SaxesState;
  const inAttribute = (p.q !== null && p.q !== undefined) || p.state === S_ATTRIB_VALUE_QUOTED || p.state === S_ATTRIB_VALUE_UNQUOTED;
  switch (reason) {
    case 'disallowed character.': {
      const c = p.chunk?.codePointAt(p.prevI ?? -1);
      if (c === 0x3c) return inAttribute ? "'<' not allowed in an attribute value (write it as &lt;)" : "'<' not allowed here";
      return c === undefined
        ? 'a character not allowed in XML 1.0'
        : `character ${codePoint(c)} not allowed in XML 1.0${inAttribute ? ' (in an attribute value)' : ''}`;
    }
    case 'undefined entity.':
      return `undefined entity '&${since(p, '&')};': JUnit XML may use only &lt; &gt; &amp; &quot; &apos; and character references (${AMP_ADVICE})`;
    case 'disallowed character in entity name.':
    case 'empty entity name.':
      return `'&' that starts no entity reference (${AMP_ADVICE})`;
    case 'unexpected end.':
      if (p.state === S_ENTITY) return `'&' without the ';' that ends an entity reference (${AMP_ADVICE})`;
      if (p.state === S_COMMENT) return 'the document ends inside a comment';
      if (p.state === S_CDATA) return 'the document ends inside a CDATA section';
      return inAttribute ? 'the document ends inside an attribute value (a missing closing quote?)' : 'the document ends inside a tag';
    case 'unexpected close tag.':
      return `close tag </${since(p, '</')}> where </${p.tag?.name ?? '?'}> was expected`;
    case 'document must contain a root element.':
      return 'no root element (the file is empty, holds no element, or ends inside the first tag)';
    case 'unquoted attribute value.':
      return 'attribute value without quotes';
    case 'text data outside of root node.':
      return 'text after the root element (or before it)';
    default: {
      const unclosed = /^unclosed tag: (.*)$/.exec(reason);
      if (unclosed) return `the document ends before </${unclosed[1]}> (the file may be cut short)`;
      return reason.replace(/\.$/, '');
    }
  }
}
