/**
 * An exact JavaScript evaluator for a subset of jq, run by the judge's thread (judge-worker.ts) on
 * the data it parsed once, before jq-wasm: most rules (`.critical == 0`, `all(.findings[]; ...)`)
 * are judged without jq's fixed cost and its second parse of the document. It answers only when its
 * answer is jq 1.7.1's: a program outside the subset, a document jq reads otherwise than
 * `JSON.parse`, any runtime error (jq's message is jq's to give), an output other than `true`,
 * `false` or `null`, or the step budget spent: `undefined`, and jq-wasm judges the rule.
 *
 * The subset: `.`, `.a`, `."a"`, `.[e]`, `.[]`, `?` after a term, `|`, `,`, number and string
 * literals, `true`, `false`, `null`, `== != < <= > >=` (jq's order of values), `and`, `or`, `not`,
 * `[...]`, `if ... then ... elif ... else ... end`, and `empty`, `length`, `type`, `keys`, `has(k)`,
 * `select(f)`, `map(f)`, `startswith(s)`, `endswith(s)`, `all`, `any` (arity 0, 1 and 2).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Comparison = '==' | '!=' | '<' | '<=' | '>' | '>=';
type Node =
  | { k: 'id' }
  | { k: 'lit'; v: Json }
  /** `t[key]`: `key` runs on the term's input (`.a[.b]`), as the outer loop. `opt` (`.a?`, `.[]?`): this step's own error skips the value. */
  | { k: 'index'; t: Node; key: Node; opt?: boolean }
  | { k: 'iter'; t: Node; opt?: boolean }
  /** `(...)?`: an error ends the body's outputs. */
  | { k: 'try'; body: Node }
  | { k: 'pipe' | 'comma' | 'and' | 'or'; l: Node; r: Node }
  | { k: 'cmp'; op: Comparison; l: Node; r: Node }
  | { k: 'array'; body: Node | null }
  | { k: 'if'; cond: Node; then: Node; else: Node }
  | { k: 'call'; name: string; args: Node[] };

/** Outside what this evaluator answers exactly: jq judges. */
class Unsupported extends Error {}
/** A jq runtime error (caught by `?`; otherwise jq judges, for its message). */
class JqError extends Error {}
/** A downstream error crossing a `?` that must not catch it. */
class Crossing {
  constructor(
    readonly error: unknown,
    readonly token: object,
  ) {}
}

/** Bounds on a program: its length, its nodes, how deeply it nests. */
const maxProgramChars = 4096;
const maxNodes = 1000;
const maxNesting = 64;
/** Steps (nodes run, values visited, compared or counted) one rule may take before jq judges it instead. */
export const subsetStepBudget = 500_000;
/** jq 1.7.1 refuses JSON nested deeper than this. */
const jqMaxDepth = 256;

/**
 * Whether jq reads `text` (JSON, as JSON.stringify writes it) as the same values as `JSON.parse`:
 * nested at most 256 deep, no surrogate escape (jq refuses a lone one) nor lone surrogate, every
 * number with at most 15 significant digits and a modest exponent (jq 1.7.1 compares two literals
 * in decimal: 15 digits are the most a double keeps distinct, in order).
 */
export function jqReadsAlike(text: string): boolean {
  // A surrogate escape anywhere (conservatively: an escaped backslash before `ud800` too) or a lone surrogate: jq's to read.
  if (surrogateEscape.test(text) || !(text as { isWellFormed(): boolean } & string).isWellFormed()) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // To the closing quote: the next one not escaped (after an even run of backslashes).
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return false;
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === 91 || c === 123) {
      if (++depth > jqMaxDepth) return false;
    } else if (c === 93 || c === 125) {
      depth--;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let exponent = false;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 101 || d === 69) exponent = true;
        else if (!((d >= 48 && d <= 57) || d === 45 || d === 43 || d === 46)) break;
      }
      // At most 15 characters and no exponent: at most 15 digits, a plain number.
      if ((exponent || j - i > 15) && !plainNumber(text.slice(i, j))) return false;
      i = j - 1;
    }
  }
  return true;
}

const surrogateEscape = /\\u[dD][89a-fA-F]/;

/** At most 15 significant digits, at most 50 digits in all and an exponent within ±250: a double holds it, distinct and in order. */
function plainNumber(text: string): boolean {
  const e = text.search(/[eE]/);
  const mantissa = e < 0 ? text : text.slice(0, e);
  if (e >= 0 && Math.abs(Number(text.slice(e + 1))) > 250) return false;
  const digits = mantissa.replace(/[^0-9]/g, '');
  if (digits.length > 50) return false;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  return significant.length <= 15;
}

// ---- Parsing ----

type Token = { t: 'field' | 'str' | 'ident'; v: string } | { t: 'num'; v: number } | { t: 'p'; v: string } | { t: 'end' };

const keywords = new Set([
  'def',
  'as',
  'if',
  'then',
  'elif',
  'else',
  'end',
  'reduce',
  'foreach',
  'try',
  'catch',
  'label',
  'import',
  'include',
  'and',
  'or',
  '__loc__',
]);
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const numberAt = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
const nameAt = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const isNameChar = (c: string | undefined) => c !== undefined && /[a-zA-Z0-9_:]/.test(c);

function tokenize(program: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = program.length;
  const name = () => {
    nameAt.lastIndex = i;
    const m = nameAt.exec(program)![0];
    i += m.length;
    // `a::b` (modules) and the like are not in the subset.
    if (program[i] === ':') throw new Unsupported('module name');
    return m;
  };
  while (i < n) {
    const c = program[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && program[j] !== '"') {
        if (program[j] === '\\') {
          if (program[j + 1] === '(') throw new Unsupported('string interpolation');
          j++;
        }
        j++;
      }
      if (j >= n) throw new Unsupported('unterminated string');
      let value: unknown;
      try {
        value = JSON.parse(program.slice(i, j + 1));
      } catch {
        throw new Unsupported('string literal');
      }
      if (typeof value !== 'string' || loneSurrogate.test(value)) throw new Unsupported('string literal');
      tokens.push({ t: 'str', v: value });
      i = j + 1;
    } else if ((c >= '0' && c <= '9') || (c === '.' && program[i + 1]! >= '0' && program[i + 1]! <= '9')) {
      numberAt.lastIndex = i;
      const text = numberAt.exec(program)![0];
      i += text.length;
      if (!plainNumber(text) || isNameChar(program[i]) || program[i] === '.') throw new Unsupported('number literal');
      tokens.push({ t: 'num', v: Number(text) });
    } else if (c === '.') {
      i++;
      if (program[i] === '.') throw new Unsupported('..');
      if (/[a-zA-Z_]/.test(program[i] ?? '')) tokens.push({ t: 'field', v: name() });
      else tokens.push({ t: 'p', v: '.' });
    } else if (/[a-zA-Z_]/.test(c)) {
      tokens.push({ t: 'ident', v: name() });
    } else {
      const two = program.slice(i, i + 2);
      if (two === '==' || two === '!=' || two === '<=' || two === '>=') {
        tokens.push({ t: 'p', v: two });
        i += 2;
      } else if ('[]()|,?;<>'.includes(c)) {
        // `?//` (alternative destructuring) starts with `?` and ends at `/`, which is not in the subset.
        tokens.push({ t: 'p', v: c });
        i++;
      } else {
        throw new Unsupported(`character ${c}`);
      }
    }
  }
  tokens.push({ t: 'end' });
  return tokens;
}

/** Builtins by name and arity. */
const builtins = new Set([
  'empty/0',
  'not/0',
  'length/0',
  'type/0',
  'keys/0',
  'all/0',
  'any/0',
  'select/1',
  'map/1',
  'has/1',
  'startswith/1',
  'endswith/1',
  'all/1',
  'any/1',
  'all/2',
  'any/2',
]);
const comparisons = new Set<string>(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  private at = 0;
  private nodes = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.pipe();
    if (this.peek().t !== 'end') throw new Unsupported('trailing tokens');
    return node;
  }

  private peek(): Token {
    return this.tokens[this.at]!;
  }

  private isP(v: string, ahead = 0): boolean {
    const t = this.tokens[this.at + ahead]!;
    return t.t === 'p' && t.v === v;
  }

  private isIdent(v: string): boolean {
    const t = this.peek();
    return t.t === 'ident' && t.v === v;
  }

  private expectP(v: string): void {
    if (!this.isP(v)) throw new Unsupported(`expected ${v}`);
    this.at++;
  }

  private expectIdent(v: string): void {
    if (!this.isIdent(v)) throw new Unsupported(`expected ${v}`);
    this.at++;
  }

  private node<N extends Node>(n: N): N {
    if (++this.nodes > maxNodes) throw new Unsupported('program too large');
    return n;
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > maxNesting) throw new Unsupported('program nests too deeply');
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  /** `a | b | c`: right-associative, the lowest precedence. */
  private pipe(): Node {
    const parts = [this.comma()];
    while (this.isP('|')) {
      this.at++;
      parts.push(this.comma());
    }
    return parts.reduceRight((r, l) => this.node({ k: 'pipe', l, r }));
  }

  private comma(): Node {
    return this.leftAssociative(
      'comma',
      () => this.isP(','),
      () => this.or(),
    );
  }

  private or(): Node {
    return this.leftAssociative(
      'or',
      () => this.isIdent('or'),
      () => this.and(),
    );
  }

  private and(): Node {
    return this.leftAssociative(
      'and',
      () => this.isIdent('and'),
      () => this.comparison(),
    );
  }

  /** `a op b op c` read as `(a op b) op c`, each operand by `operand`, while `atOperator` holds. */
  private leftAssociative(k: 'comma' | 'or' | 'and', atOperator: () => boolean, operand: () => Node): Node {
    let l = operand();
    while (atOperator()) {
      this.at++;
      l = this.node({ k, l, r: operand() });
    }
    return l;
  }

  /** Not associative: `a == b == c` is a syntax error in jq. */
  private comparison(): Node {
    const l = this.postfix();
    const t = this.peek();
    if (t.t !== 'p' || !comparisons.has(t.v)) return l;
    this.at++;
    const node = this.node({ k: 'cmp', op: t.v as Comparison, l, r: this.postfix() });
    const after = this.peek();
    if (after.t === 'p' && comparisons.has(after.v)) throw new Unsupported('chained comparison');
    return node;
  }

  /** Whether the term just parsed ends in an index or iteration step (`?` after it makes that step optional). */
  private stepped = false;

  /**
   * Steps after a term. jq 1.7.1 reads `?` right after a step (`.a?`, `.[e]?`, `.[]?`) as that
   * step's own option: an error of the term before it, or of `e`, is not caught (`[1] | .a.b?`
   * fails); after anything else (`(.a.b)?`) it is `try`.
   */
  private postfix(): Node {
    let term = this.term();
    let stepped = this.stepped;
    for (;;) {
      const t = this.peek();
      if (t.t === 'field') {
        this.at++;
        term = this.node({ k: 'index', t: term, key: this.node({ k: 'lit', v: t.v }) });
        stepped = true;
      } else if (this.isP('.') && this.tokens[this.at + 1]!.t === 'str') {
        const key = this.tokens[this.at + 1] as { v: string };
        this.at += 2;
        term = this.node({ k: 'index', t: term, key: this.node({ k: 'lit', v: key.v }) });
        stepped = true;
      } else if (this.isP('[') || (this.isP('.') && this.isP('[', 1))) {
        if (this.isP('.')) this.at++;
        term = this.bracket(term);
        stepped = true;
      } else if (this.isP('?')) {
        this.at++;
        if (stepped && (term.k === 'index' || term.k === 'iter')) term = { ...term, opt: true };
        else term = this.node({ k: 'try', body: term });
        stepped = false;
      } else {
        return term;
      }
    }
  }

  /** `[]` or `[e]` after `term` (at its `[`). */
  private bracket(term: Node): Node {
    this.expectP('[');
    if (this.isP(']')) {
      this.at++;
      return this.node({ k: 'iter', t: term });
    }
    const key = this.nested(() => this.pipe());
    this.expectP(']');
    return this.node({ k: 'index', t: term, key });
  }

  private term(): Node {
    this.stepped = false;
    const t = this.peek();
    if (t.t === 'num' || t.t === 'str') {
      this.at++;
      return this.node({ k: 'lit', v: t.v });
    }
    if (t.t === 'field') {
      this.at++;
      this.stepped = true;
      return this.node({ k: 'index', t: this.node({ k: 'id' }), key: this.node({ k: 'lit', v: t.v }) });
    }
    if (t.t === 'p' && t.v === '.') {
      this.at++;
      const identity = this.node({ k: 'id' } as const);
      const next = this.peek();
      if (next.t === 'str') {
        this.at++;
        this.stepped = true;
        return this.node({ k: 'index', t: identity, key: this.node({ k: 'lit', v: next.v }) });
      }
      if (!this.isP('[')) return identity;
      const step = this.bracket(identity);
      this.stepped = true;
      return step;
    }
    if (t.t === 'p' && t.v === '(') {
      this.at++;
      const inner = this.nested(() => this.pipe());
      this.expectP(')');
      this.stepped = false;
      return inner;
    }
    if (t.t === 'p' && t.v === '[') {
      this.at++;
      if (this.isP(']')) {
        this.at++;
        return this.node({ k: 'array', body: null });
      }
      const body = this.nested(() => this.pipe());
      this.expectP(']');
      this.stepped = false;
      return this.node({ k: 'array', body });
    }
    if (t.t === 'ident') {
      if (t.v === 'if') {
        const conditional = this.nested(() => this.conditional());
        this.stepped = false;
        return conditional;
      }
      if (keywords.has(t.v)) throw new Unsupported(`keyword ${t.v}`);
      this.at++;
      if (t.v === 'true' || t.v === 'false' || t.v === 'null') return this.node({ k: 'lit', v: t.v === 'null' ? null : t.v === 'true' });
      const args: Node[] = [];
      if (this.isP('(')) {
        this.at++;
        this.nested(() => {
          args.push(this.pipe());
          while (this.isP(';')) {
            this.at++;
            args.push(this.pipe());
          }
        });
        this.expectP(')');
      }
      if (!builtins.has(`${t.v}/${args.length}`)) throw new Unsupported(`function ${t.v}/${args.length}`);
      this.stepped = false;
      return this.call(t.v, args);
    }
    throw new Unsupported('unexpected token');
  }

  /** jq's definitions: `map(f)` is `[.[] | f]`, `all` is `all(.[]; .)`, `all(f)` is `all(.[]; f)` (`any` alike). */
  private call(name: string, args: Node[]): Node {
    const each = () => this.node({ k: 'iter', t: this.node({ k: 'id' }) } as const);
    if (name === 'map') return this.node({ k: 'array', body: this.node({ k: 'pipe', l: each(), r: args[0]! }) });
    if ((name === 'all' || name === 'any') && args.length < 2) return this.node({ k: 'call', name, args: [each(), args[0] ?? this.node({ k: 'id' })] });
    return this.node({ k: 'call', name, args });
  }

  /** At `if`: `if c then a (elif c then a)* (else b)? end` (no `else`: `.`). */
  private conditional(): Node {
    this.expectIdent('if');
    const cond = this.pipe();
    this.expectIdent('then');
    const then = this.pipe();
    let otherwise: Node;
    if (this.isIdent('elif')) {
      // `elif ...` is `else if ... end`: parsed as an `if` from here, sharing the one `end`.
      this.tokens[this.at] = { t: 'ident', v: 'if' };
      otherwise = this.conditional();
      return this.node({ k: 'if', cond, then, else: otherwise });
    }
    if (this.isIdent('else')) {
      this.at++;
      otherwise = this.pipe();
    } else {
      otherwise = this.node({ k: 'id' });
    }
    this.expectIdent('end');
    return this.node({ k: 'if', cond, then, else: otherwise });
  }
}

/** A rule compiled for the subset, or undefined when it is not in it (jq judges it). */
export type SubsetProgram = { readonly node: Node };

export function compileSubset(program: string): SubsetProgram | undefined {
  if (program.length > maxProgramChars) return undefined;
  try {
    return { node: new Parser(tokenize(program)).parse() };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

// ---- Evaluation ----

type Emit = (v: Json) => boolean;

const truthy = (v: Json) => v !== null && v !== false;

function kind(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'array' : 'object';
}

/** jq's order of kinds: null < false < true < numbers < strings < arrays < objects. */
function rank(v: Json): number {
  if (v === null) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  if (typeof v === 'number') return 3;
  if (typeof v === 'string') return 4;
  return Array.isArray(v) ? 5 : 6;
}

/** By code point, as jq compares UTF-8 bytes (UTF-16 code units put U+E000-U+FFFF after astral characters). */
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

/** The largest index judged here: jq converts an index to a C int. */
const maxIndex = 2 ** 31 - 1;

/** An array-index-like key: JavaScript objects list them first, jq keeps the document's order. */
const indexLike = /^(?:0|[1-9][0-9]*)$/;

class Evaluation {
  constructor(private steps: number) {}

  spend(n: number): void {
    this.steps -= n;
    if (this.steps < 0) throw new Unsupported('step budget spent');
  }

  /** The keys of an object in jq's order of iteration (the document's), or jq judges. */
  private values(o: { [key: string]: Json }): Json[] {
    const keys = Object.keys(o);
    this.spend(keys.length);
    for (const key of keys) if (indexLike.test(key)) throw new Unsupported('index-like key');
    return keys.map((key) => o[key]!);
  }

  compare(a: Json, b: Json): number {
    this.spend(1);
    const ra = rank(a);
    const rb = rank(b);
    if (ra !== rb) return ra - rb;
    if (typeof a === 'number') return a < (b as number) ? -1 : a === b ? 0 : 1;
    if (typeof a === 'string') return compareStrings(a, b as string);
    if (Array.isArray(a)) {
      const bs = b as Json[];
      const n = Math.min(a.length, bs.length);
      for (let i = 0; i < n; i++) {
        const r = this.compare(a[i]!, bs[i]!);
        if (r !== 0) return r;
      }
      return a.length - bs.length;
    }
    if (a === null || typeof a !== 'object') return 0;
    // Objects: their sorted keys first (as arrays of strings), then the values key by key.
    const bo = b as { [key: string]: Json };
    const ka = Object.keys(a).sort(compareStrings);
    const kb = Object.keys(bo).sort(compareStrings);
    this.spend(ka.length + kb.length);
    const keys = this.compare(ka, kb);
    if (keys !== 0) return keys;
    for (const key of ka) {
      const r = this.compare(a[key]!, bo[key]!);
      if (r !== 0) return r;
    }
    return 0;
  }

  index(t: Json, key: Json): Json {
    if (t === null) {
      // `null | .[{...}]` (a slice of null) is null too.
      if (typeof key === 'string' || typeof key === 'number' || (key !== null && typeof key === 'object' && !Array.isArray(key))) return null;
    } else if (Array.isArray(t)) {
      if (typeof key === 'number') {
        // jq truncates a fractional index to a C int (an index past an int's range is undefined there): left to jq.
        if (!Number.isInteger(key) || Math.abs(key) > maxIndex) throw new Unsupported('fractional or huge index');
        const i = key < 0 ? t.length + key : key;
        return i >= 0 && i < t.length ? t[i]! : null;
      }
      // `.[[...]]` gives indices, `.[{start, end}]` a slice.
      if (key !== null && typeof key === 'object') throw new Unsupported('index by array or object');
    } else if (typeof t === 'object') {
      if (typeof key === 'string') return Object.hasOwn(t, key) ? t[key]! : null;
    }
    throw new JqError(`Cannot index ${kind(t)}`);
  }

  length(v: Json): number {
    if (v === null) return 0;
    if (typeof v === 'boolean') throw new JqError('has no length');
    if (typeof v === 'number') return Math.abs(v);
    if (typeof v === 'string') {
      this.spend(v.length >> 4);
      // Code points: a surrogate pair counts once.
      let n = v.length;
      for (let i = 0; i < v.length; i++) {
        const c = v.charCodeAt(i);
        if (c >= 0xdc00 && c <= 0xdfff) n--;
      }
      return n;
    }
    return Array.isArray(v) ? v.length : Object.keys(v).length;
  }

  keys(v: Json): Json {
    if (Array.isArray(v)) {
      this.spend(v.length);
      return v.map((_, i) => i);
    }
    if (v === null || typeof v !== 'object') throw new JqError('has no keys');
    const keys = Object.keys(v);
    this.spend(keys.length * 4);
    return keys.sort(compareStrings);
  }

  has(v: Json, key: Json): boolean {
    if (Array.isArray(v) && typeof key === 'number') {
      if (!Number.isInteger(key) || Math.abs(key) > maxIndex) throw new Unsupported('fractional or huge key');
      return key >= 0 && key < v.length;
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof key === 'string') return Object.hasOwn(v, key);
    throw new JqError('Cannot check whether it has a key');
  }

  run(n: Node, input: Json, emit: Emit): boolean {
    this.spend(1);
    switch (n.k) {
      case 'id':
        return emit(input);
      case 'lit':
        return emit(n.v);
      case 'index':
        return this.run(n.key, input, (key) =>
          this.run(n.t, input, (t) => {
            let v: Json;
            try {
              v = this.index(t, key);
            } catch (error) {
              if (n.opt && error instanceof JqError) return true;
              throw error;
            }
            return emit(v);
          }),
        );
      case 'iter':
        return this.run(n.t, input, (t) => {
          let values: Json[];
          if (Array.isArray(t)) values = t;
          else if (t !== null && typeof t === 'object') values = this.values(t);
          else if (n.opt) return true;
          else throw new JqError(`Cannot iterate over ${kind(t)}`);
          for (const v of values) {
            this.spend(1);
            if (!emit(v)) return false;
          }
          return true;
        });
      case 'try': {
        // Errors of the body end it quietly; errors of what its outputs flow into pass through.
        const token = {};
        try {
          return this.run(n.body, input, (v) => {
            try {
              return emit(v);
            } catch (error) {
              throw new Crossing(error, token);
            }
          });
        } catch (error) {
          if (error instanceof Crossing && error.token === token) throw error.error;
          if (error instanceof JqError) return true;
          throw error;
        }
      }
      case 'pipe':
        return this.run(n.l, input, (v) => this.run(n.r, v, emit));
      case 'comma':
        return this.run(n.l, input, emit) && this.run(n.r, input, emit);
      case 'and':
        return this.run(n.l, input, (a) => (truthy(a) ? this.run(n.r, input, (b) => emit(truthy(b))) : emit(false)));
      case 'or':
        return this.run(n.l, input, (a) => (truthy(a) ? emit(true) : this.run(n.r, input, (b) => emit(truthy(b)))));
      case 'cmp':
        // The right operand is the outer loop: `[(1,2) + (10,20)]` is [11,12,21,22].
        return this.run(n.r, input, (b) =>
          this.run(n.l, input, (a) => {
            const r = this.compare(a, b);
            const op = n.op;
            return emit(op === '==' ? r === 0 : op === '!=' ? r !== 0 : op === '<' ? r < 0 : op === '<=' ? r <= 0 : op === '>' ? r > 0 : r >= 0);
          }),
        );
      case 'array': {
        const out: Json[] = [];
        if (n.body) this.run(n.body, input, (v) => (out.push(v), true));
        return emit(out);
      }
      case 'if':
        return this.run(n.cond, input, (c) => this.run(truthy(c) ? n.then : n.else, input, emit));
      case 'call':
        return this.call(n.name, n.args, input, emit);
    }
  }

  private call(name: string, args: Node[], input: Json, emit: Emit): boolean {
    switch (name) {
      case 'empty':
        return true;
      case 'not':
        return emit(!truthy(input));
      case 'length':
        return emit(this.length(input));
      case 'type':
        return emit(kind(input));
      case 'keys':
        return emit(this.keys(input));
      case 'select':
        return this.run(args[0]!, input, (c) => (truthy(c) ? emit(input) : true));
      case 'has':
        return this.run(args[0]!, input, (key) => emit(this.has(input, key)));
      case 'startswith':
      case 'endswith':
        return this.run(args[0]!, input, (s) => {
          if (typeof input !== 'string' || typeof s !== 'string') throw new JqError(`${name}() requires string inputs`);
          return emit(name === 'startswith' ? input.startsWith(s) : input.endsWith(s));
        });
      case 'all':
      case 'any': {
        // jq 1.7.1: `isempty(first(gen | cond and empty))`: stops at the first falsy (`all`) or truthy (`any`) condition.
        const wanted = name === 'any';
        let found = false;
        this.run(args[0]!, input, (v) =>
          this.run(args[1]!, v, (c) => {
            if (truthy(c) !== wanted) return true;
            found = true;
            return false;
          }),
        );
        return emit(wanted ? found : !found);
      }
    }
    throw new Unsupported(`function ${name}`);
  }
}

/**
 * A rule's outputs on `data`, when this evaluator gives jq's exactly: `data` must be what
 * `JSON.parse` made of a text `jqReadsAlike` accepts. Undefined: jq judges the rule.
 */
export function runSubset(program: SubsetProgram, data: Json, budget = subsetStepBudget): Array<boolean | null> | undefined {
  const outputs: Array<boolean | null> = [];
  try {
    new Evaluation(budget).run(program.node, data, (v) => {
      // Numbers, strings, arrays and objects are printed as jq prints them (`1.0`, `1E+2`, its escapes): jq's to print.
      if (v !== null && typeof v !== 'boolean') throw new Unsupported('output');
      outputs.push(v);
      return true;
    });
  } catch (error) {
    if (error instanceof Unsupported || error instanceof JqError || error instanceof RangeError) return undefined;
    throw error;
  }
  return outputs;
}
