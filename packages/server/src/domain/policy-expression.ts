/**
 * The expression language of environment policies (`if: ${{ … }}`), as Kosli's reference defines
 * it: `== != < > <= >=`, `and or not`, `in [ … ]`, parentheses, `exists(x)`, `matches(s, re)`, and
 * the contexts `flow.name`, `flow.tags.<key>` (dotted keys allowed), `artifact.name` and
 * `artifact.fingerprint`. A parser and evaluator of our own (nothing is handed to `eval`), bounded
 * in size and depth so that a policy cannot exhaust the stack, and regular expressions on re2js,
 * whose matching is linear in the input, so that no pattern can backtrack for minutes.
 */
import { RE2JS } from 're2js';

export const expressionBounds = {
  /** Characters of one expression: real ones are a line. */
  chars: 2_000,
  /** Tokens of one expression. */
  tokens: 400,
  /** Nesting of parentheses, lists, calls and `not`. */
  depth: 24,
  /** Characters of a `matches()` pattern. */
  patternChars: 500,
} as const;

/** An expression that does not parse, or whose value is not what its place needs: names the expression. */
export class PolicyExpressionError extends Error {
  override readonly name = 'PolicyExpressionError';
  constructor(
    readonly expression: string,
    readonly problem: string,
  ) {
    super(`expression '${expression.length > 120 ? `${expression.slice(0, 120)}…` : expression}': ${problem}`);
  }
}

export type Value = string | number | boolean | null | Value[];

/** What an expression reads: the artifact's flow (null without provenance) and the artifact. */
export interface ExpressionContext {
  flow: { name: string; tags: Record<string, string> } | null;
  artifact: { name: string; fingerprint: string };
}

type Node =
  | { kind: 'literal'; value: Value }
  | { kind: 'list'; items: Node[] }
  | { kind: 'path'; path: string[] }
  | { kind: 'not'; operand: Node }
  | { kind: 'logical'; op: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'compare'; op: '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in'; left: Node; right: Node }
  | { kind: 'exists'; operand: Node }
  | { kind: 'matches'; input: Node; pattern: RE2JS };

/** A parsed expression: its text (as written, inside `${{ }}`) and its tree. */
export interface Expression {
  readonly text: string;
  readonly root: Node;
}

type Token = { kind: 'op' | 'ident' | 'string' | 'number'; text: string; value?: Value };

const operators = ['==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', ',', '.'];
const identStart = /[A-Za-z_]/;
const identPart = /[A-Za-z0-9_-]/;

function tokenize(text: string, fail: (problem: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (tokens.length >= expressionBounds.tokens) fail(`an expression may have at most ${expressionBounds.tokens} tokens`);
    const op = operators.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    } else if (c === '"' || c === "'") {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) value += text[j] === '\\' && j + 1 < text.length ? text[++j] : text[j];
      if (j >= text.length) fail(`unterminated string at character ${i + 1}`);
      tokens.push({ kind: 'string', text: text.slice(i, j + 1), value });
      i = j + 1;
    } else if (/[0-9]/.test(c)) {
      const number = /^[0-9]+(?:\.[0-9]+)?/.exec(text.slice(i, i + 40))![0];
      tokens.push({ kind: 'number', text: number, value: Number(number) });
      i += number.length;
    } else if (identStart.test(c)) {
      let j = i + 1;
      while (j < text.length && identPart.test(text[j]!)) j++;
      tokens.push({ kind: 'ident', text: text.slice(i, j) });
      i = j;
    } else {
      fail(`unexpected character '${c}' at character ${i + 1}`);
    }
  }
  return tokens;
}

/** The text inside `${{ … }}`, or the whole text when it is not wrapped. */
export function unwrapExpression(text: string): string {
  const wrapped = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text);
  return (wrapped ? wrapped[1]! : text).trim();
}

/** Parses an expression (wrapped in `${{ }}` or not); throws `PolicyExpressionError` naming it. */
export function parseExpression(source: string): Expression {
  const text = unwrapExpression(source);
  const fail = (problem: string): never => {
    throw new PolicyExpressionError(text, problem);
  };
  if (text.length > expressionBounds.chars) fail(`an expression may be at most ${expressionBounds.chars} characters`);
  if (!text) fail('the expression is empty');
  const tokens = tokenize(text, fail);
  let at = 0;
  let depth = 0;
  const peek = () => tokens[at];
  const isOp = (t: string) => peek()?.kind === 'op' && peek()!.text === t;
  const isWord = (w: string) => peek()?.kind === 'ident' && peek()!.text === w;
  const expect = (t: string) => {
    if (!isOp(t)) fail(`expected '${t}' ${peek() ? `before '${peek()!.text}'` : 'at the end'}`);
    at++;
  };
  const nested = <T>(parse: () => T): T => {
    if (++depth > expressionBounds.depth) fail(`an expression may nest at most ${expressionBounds.depth} levels`);
    const node = parse();
    depth--;
    return node;
  };

  /** `a and b and c`, left to right (a loop, so a long chain does not deepen the stack). */
  const chain = (op: 'and' | 'or', next: () => Node) => (): Node => {
    let left = next();
    while (isWord(op)) {
      at++;
      left = { kind: 'logical', op, left, right: next() };
    }
    return left;
  };
  const or: () => Node = chain('or', () => and());
  const and: () => Node = chain('and', () => not());
  const not = (): Node => {
    if (!isWord('not')) return comparison();
    at++;
    return nested(() => ({ kind: 'not', operand: not() }));
  };
  const comparison = (): Node => {
    const left = primary();
    const token = peek();
    const op = token?.kind === 'op' && ['==', '!=', '<', '>', '<=', '>='].includes(token.text) ? token.text : isWord('in') ? 'in' : undefined;
    if (!op) return left;
    at++;
    return { kind: 'compare', op: op as '==', left, right: primary() };
  };
  const primary = (): Node => {
    const token = peek();
    if (!token) return fail('the expression ends where a value is expected');
    if (token.kind === 'string' || token.kind === 'number') {
      at++;
      return { kind: 'literal', value: token.value! };
    }
    if (isOp('(')) {
      at++;
      const inner = nested(or);
      expect(')');
      return inner;
    }
    if (isOp('[')) {
      at++;
      return nested(() => {
        const items: Node[] = [];
        while (!isOp(']')) {
          items.push(or());
          if (!isOp(']')) expect(',');
        }
        at++;
        return { kind: 'list', items };
      });
    }
    if (token.kind !== 'ident') return fail(`unexpected '${token.text}'`);
    at++;
    if (token.text === 'true' || token.text === 'false') return { kind: 'literal', value: token.text === 'true' };
    if (token.text === 'null') return { kind: 'literal', value: null };
    if (isOp('(')) return nested(() => call(token.text));
    return path(token.text);
  };
  const call = (name: string): Node => {
    at++;
    const args: Node[] = [];
    while (!isOp(')')) {
      args.push(or());
      if (!isOp(')')) expect(',');
    }
    at++;
    if (name === 'exists') {
      if (args.length !== 1) fail('exists() takes one argument');
      return { kind: 'exists', operand: args[0]! };
    }
    if (name === 'matches') {
      const [input, pattern] = args;
      if (args.length !== 2 || pattern?.kind !== 'literal' || typeof pattern.value !== 'string') fail('matches() takes a value and a pattern in quotes');
      return { kind: 'matches', input: input!, pattern: compilePattern((pattern as { value: string }).value, fail) };
    }
    return fail(`unknown function '${name}' (expected exists or matches)`);
  };
  const path = (root: string): Node => {
    if (root !== 'flow' && root !== 'artifact') fail(`unknown context '${root}' (expected flow or artifact)`);
    const segments = [root];
    while (isOp('.')) {
      at++;
      const next = peek();
      if (next?.kind !== 'ident' && next?.kind !== 'number') fail(`expected a name after '${segments.join('.')}.'`);
      segments.push(next!.text);
      at++;
    }
    checkPath(segments, fail);
    return { kind: 'path', path: segments };
  };

  const root = or();
  if (at < tokens.length) fail(`unexpected '${tokens[at]!.text}'`);
  if (!yieldsBoolean(root)) fail('the expression must be a condition (true or false), not a value');
  return { text, root };
}

function checkPath(segments: string[], fail: (problem: string) => never): void {
  const [root, field, ...rest] = segments;
  if (field === undefined) return;
  const fields = root === 'flow' ? ['name', 'tags'] : ['name', 'fingerprint'];
  if (!fields.includes(field)) fail(`unknown field '${root}.${field}' (expected ${fields.map((f) => `${root}.${f}`).join(', ')})`);
  if (field !== 'tags' && rest.length) fail(`'${root}.${field}' has no fields`);
}

function compilePattern(pattern: string, fail: (problem: string) => never): RE2JS {
  if (pattern.length > expressionBounds.patternChars) fail(`a pattern may be at most ${expressionBounds.patternChars} characters`);
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    return fail(`invalid pattern: ${(error as Error).message}`);
  }
}

/** Whether a node's value is a boolean whatever the context holds (checked when the policy is stored). */
function yieldsBoolean(node: Node): boolean {
  switch (node.kind) {
    case 'literal':
      return typeof node.value === 'boolean';
    case 'not':
    case 'logical':
    case 'compare':
    case 'exists':
    case 'matches':
      return true;
    default:
      return false;
  }
}

/** Evaluates a parsed expression; a non-boolean result (or operand of and/or/not) is an error naming it. */
export function evaluateExpression(expression: Expression, context: ExpressionContext): boolean {
  const fail = (problem: string): never => {
    throw new PolicyExpressionError(expression.text, problem);
  };
  const boolean = (node: Node, what: string): boolean => {
    const value = evaluate(node);
    if (typeof value !== 'boolean') fail(`${what} is ${describe(value)}, not true or false`);
    return value as boolean;
  };
  const evaluate = (node: Node): Value => {
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'list':
        return node.items.map(evaluate);
      case 'path':
        return resolvePath(node.path, context);
      case 'not':
        return !boolean(node.operand, "not's operand");
      case 'logical':
        return node.op === 'and'
          ? boolean(node.left, "and's left side") && boolean(node.right, "and's right side")
          : boolean(node.left, "or's left side") || boolean(node.right, "or's right side");
      case 'exists':
        return evaluate(node.operand) !== null;
      case 'matches': {
        const input = evaluate(node.input);
        return typeof input === 'string' && node.pattern.matcher(input).find();
      }
      case 'compare':
        return compare(node.op, evaluate(node.left), evaluate(node.right), fail);
    }
  };
  return boolean(expression.root, 'the result');
}

function resolvePath(path: string[], context: ExpressionContext): Value {
  const [root, field, ...rest] = path;
  if (root === 'artifact') {
    if (field === undefined) return `${context.artifact.name}@${context.artifact.fingerprint}`;
    return field === 'name' ? context.artifact.name : context.artifact.fingerprint;
  }
  const flow = context.flow;
  if (!flow) return null;
  if (field === undefined) return flow.name;
  if (field === 'name') return flow.name;
  // `flow.tags.key.with.dots`: the rest of the path is one key.
  const key = rest.join('.');
  return key && Object.hasOwn(flow.tags, key) ? (flow.tags[key] ?? null) : null;
}

/** A tag's text as a number where the other side is one (`flow.tags.priority < 3`). */
const numeric = (value: Value): number | undefined =>
  typeof value === 'number' ? value : typeof value === 'string' && /^-?[0-9]+(?:\.[0-9]+)?$/.test(value.trim()) ? Number(value) : undefined;

function equal(a: Value, b: Value): boolean {
  if (typeof a === 'number' || typeof b === 'number') return numeric(a) !== undefined && numeric(a) === numeric(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]!));
  return a === b;
}

function compare(op: string, left: Value, right: Value, fail: (problem: string) => never): boolean {
  if (op === '==') return equal(left, right);
  if (op === '!=') return !equal(left, right);
  if (op === 'in') {
    if (Array.isArray(right)) return right.some((item) => equal(left, item));
    if (typeof right === 'string' && typeof left === 'string') return right.includes(left);
    if (right === null) return false;
    return fail(`'in' needs a list on its right, not ${describe(right)}`);
  }
  // An absent tag orders with nothing: the condition is false, as an absent value equals nothing.
  if (left === null || right === null) return false;
  const [a, b] = typeof left === 'number' || typeof right === 'number' ? [numeric(left), numeric(right)] : [left, right];
  if (a === undefined || b === undefined || typeof a !== typeof b || typeof a === 'boolean' || Array.isArray(a))
    return fail(`'${op}' compares numbers or texts, not ${describe(left)} and ${describe(right)}`);
  return op === '<' ? a! < b! : op === '>' ? a! > b! : op === '<=' ? a! <= b! : a! >= b!;
}

const describe = (value: Value): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'a list'
      : typeof value === 'string'
        ? `the text ${JSON.stringify(value.slice(0, 40))}`
        : `${typeof value} ${value}`;
