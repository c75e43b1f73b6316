/**
 * What a template may be, checked on its text before the YAML library builds a document from it:
 * a template is a few KB with a few dozen entries, while the library's work grows with the entries
 * and nesting it is given (20,000 keys held the event loop for 12 s; 200,000 nested lists overflowed
 * its stack). One pass of the library's lexer (linear, no recursion) counts what the document would
 * hold, and stops at the first bound crossed.
 */
import { CST, Lexer } from 'yaml';

export const templateBounds = {
  /** Bytes of YAML text: a real template is a few KB. */
  bytes: 64 * 1024,
  /** Keys and list entries, all collections together: a real template has a few dozen. */
  entries: 2_000,
  /** Nesting of mappings and lists: a template nests 6 levels (trail, artifacts, attestations, ...). */
  depth: 16,
} as const;

/** The first bound a template's (or a policy's, `what`) text crosses, with its line (1-based); undefined within bounds. */
export function templateBoundProblem(text: string, what = 'template'): { line: number; problem: string } | undefined {
  // A string of n UTF-16 units takes at least n bytes of UTF-8: the count is only needed near the bound.
  if (text.length > templateBounds.bytes || (text.length * 3 > templateBounds.bytes && Buffer.byteLength(text) > templateBounds.bytes)) {
    return { line: 1, problem: `a ${what} may be at most ${templateBounds.bytes} bytes` };
  }
  let line = 1;
  let column = 0;
  let entries = 0;
  let flowDepth = 0;
  /**
   * The open block collections, innermost last: indentation decides nesting, except that a list
   * may sit at its key's column (`key:` then `- item` below it), and a key at that column ends it.
   */
  const blocks: Array<{ column: number; kind: 'map' | 'seq' }> = [];
  /** Where the current block entry's content began on its line (a key's column). */
  let contentColumn: number | undefined;
  const openBlockAt = (column: number, kind: 'map' | 'seq') => {
    const top = () => blocks[blocks.length - 1];
    while (top() && (top()!.column > column || (top()!.column === column && kind === 'map' && top()!.kind === 'seq'))) blocks.pop();
    if (!top() || top()!.column < column || top()!.kind !== kind) blocks.push({ column, kind });
  };
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    // The lexer's markers of document, scalar and flow-error are not text of the template.
    if (type === 'doc-mode' || type === 'flow-error-end' || (type === 'scalar' && token === CST.SCALAR) || type === 'byte-order-mark') continue;
    const at = column;
    switch (type) {
      case 'anchor':
      case 'alias':
        return { line, problem: `anchors (&) and aliases (*) are not accepted in a ${what}` };
      case 'flow-map-start':
      case 'flow-seq-start':
        flowDepth++;
        entries++;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flowDepth = Math.max(0, flowDepth - 1);
        break;
      case 'comma':
        entries++;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        entries++;
        if (flowDepth === 0) openBlockAt(at, type === 'seq-item-ind' ? 'seq' : 'map');
        contentColumn = undefined;
        break;
      case 'map-value-ind':
        entries++;
        if (flowDepth === 0) openBlockAt(contentColumn ?? at, 'map');
        contentColumn = undefined;
        break;
      case 'space':
      case 'newline':
      case 'comment':
        break;
      default:
        contentColumn ??= at;
    }
    if (entries > templateBounds.entries) return { line, problem: `a ${what} may have at most ${templateBounds.entries} keys and list entries` };
    if (flowDepth + blocks.length > templateBounds.depth) return { line, problem: `a ${what} may nest at most ${templateBounds.depth} levels` };
    const newline = token.lastIndexOf('\n');
    if (newline < 0) {
      column += token.length;
    } else {
      for (let i = token.indexOf('\n'); i >= 0; i = token.indexOf('\n', i + 1)) line++;
      column = token.length - newline - 1;
      contentColumn = undefined;
    }
  }
  return undefined;
}
