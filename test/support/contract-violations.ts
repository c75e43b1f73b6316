/**
 * Well-formed request data that breaks an operation's contract in exactly one place, derived
 * from the operation's own JSON Schema (the one the server validates with), so the generators
 * follow the contract as it changes.
 *
 * `contractViolations(operations)` builds, per operation with a body, a complete example (every
 * optional field present, so nested objects such as git_commit_info are reached) and from it:
 * values of the wrong type, missing required fields, unknown fields, strings / arrays / objects
 * one step over their maxLength / maxItems / maxProperties, and strings or keys with a NUL
 * character or a lone surrogate. Schema violations are kept only where the contract's validator
 * refuses them, so none of them is a valid request in disguise.
 */
import fc from 'fast-check';
import { createValidator, limits, sharedSchemas, type Operation, type OperationValidators } from '@trailproof/schema';

/** The parts of JSON Schema that the contract uses. */
interface Schema {
  $id?: string;
  $ref?: string;
  type?: string;
  anyOf?: Schema[];
  /** With a `discriminator` (attestSystem's `type_name`): a value is one of the branches; the first stands for them all. */
  oneOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  pattern?: string;
  /** Values the schema gives as examples: tried first where no stock text fits its pattern. */
  examples?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
}

export type ViolationCategory = 'wrong-type' | 'missing-required' | 'unknown-field' | 'over-limit' | 'nul-character' | 'lone-surrogate';

export interface DataViolation {
  category: ViolationCategory;
  data: unknown;
  /** The field the server must name in `errors` (`''` for the data itself). */
  field: string;
  why: string;
}

/** One place in the example: its path and the (resolved, non-null) schema it was built from. */
interface Slot {
  path: string[];
  schema: Schema;
  value: unknown;
}

export interface OperationViolations {
  /** The complete, valid example the violations are made from. */
  example: unknown;
  validate: OperationValidators;
  /** Schema violations, each refused by the contract's validator. */
  schema: Record<'wrong-type' | 'missing-required' | 'over-limit', DataViolation[]>;
  unknownField: fc.Arbitrary<DataViolation>;
  /** Objects in the example that accept unknown keys (their schema leaves them open). */
  openObjects: string[];
  /** NUL characters and lone surrogates in string values and object keys. */
  badText: fc.Arbitrary<DataViolation>;
}

/** A JSON value of each type; the wrong-type candidates. */
const samples: unknown[] = [0, -1, 1.5, 1e300, true, 'text', '', [], [1], {}, { a: 1 }, null];
const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** Stays this far below the body limit so that only the violation, never the size, is at fault. */
const sizeMargin = 16 * 1024;

export function contractViolations(operations: readonly Operation[]): Map<string, OperationViolations> {
  const named = new Map<string, Schema>();
  for (const s of [...sharedSchemas, ...operations.flatMap((o) => o.schemas ?? [])] as Schema[]) if (s.$id) named.set(s.$id, s);
  const validators = createValidator(operations);
  const resolve = (s: Schema): Schema =>
    s.$ref ? resolve(named.get(s.$ref) ?? fail(`unresolved $ref ${s.$ref}`)) : s.oneOf ? resolve(s.oneOf[0] ?? fail('an empty oneOf')) : s;

  const out = new Map<string, OperationViolations>();
  for (const operation of operations) {
    if (!operation.body) continue;
    const slots: Slot[] = [];
    const example = build(operation.body.data as Schema, [], slots, resolve);
    const validate = validators(operation.id);
    const refused = (data: unknown) => !validate.data(structuredClone(data)).ok;
    const keep = (list: DataViolation[]) => list.filter((v) => refused(v.data));

    const wrongType = slots.flatMap((slot) =>
      samples
        .filter((sample) => jsonType(sample) !== jsonType(slot.value))
        .map((sample) => violation('wrong-type', setAt(example, slot.path, sample), slot.path, `${JSON.stringify(sample)} for a ${jsonType(slot.value)}`)),
    );

    const objects = slots.filter((slot) => jsonType(slot.value) === 'object');
    const missing = objects.flatMap((slot) =>
      (slot.schema.required ?? []).map((key) => violation('missing-required', removeAt(example, [...slot.path, key]), [...slot.path, key], 'missing')),
    );

    const overLimit = slots.flatMap((slot) =>
      overLimitValues(slot)
        .map(({ value, what }) => violation('over-limit', setAt(example, slot.path, value), slot.path, what))
        .filter((v) => JSON.stringify(v.data).length < limits.dataJsonBytes - sizeMargin),
    );

    // Closed: the schema says so, and the validator agrees.
    const closed = objects.filter(
      (slot) =>
        slot.schema.additionalProperties === false && !slot.schema.patternProperties && refused(setAt(example, [...slot.path, 'unexpected_field'], 'value')),
    );
    const unknownField = fc
      .tuple(fc.constantFrom(...closed), fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/), fc.jsonValue({ maxDepth: 2 }))
      .filter(([slot, key]) => !(key in (slot.schema.properties ?? {})))
      .map(([slot, key, value]) => violation('unknown-field', setAt(example, [...slot.path, key], value), [...slot.path, key], `unknown ${key}`));

    out.set(operation.id, {
      example,
      validate,
      schema: { 'wrong-type': keep(wrongType), 'missing-required': keep(missing), 'over-limit': keep(overLimit) },
      unknownField,
      openObjects: objects.filter((slot) => !closed.includes(slot)).map((slot) => slot.path.join('.') || '(top level)'),
      badText: badText(example, slots),
    });
  }
  return out;
}

/** A complete valid value for `schema`: every optional property, one entry per array and record. */
function build(schema: Schema, path: string[], slots: Slot[], resolve: (s: Schema) => Schema): unknown {
  let s = resolve(schema);
  if (s.anyOf) s = resolve(s.anyOf.find((branch) => resolve(branch).type !== 'null') ?? s.anyOf[0]!);
  if (s.anyOf) return build(s, path, slots, resolve);
  let value: unknown;
  if (s.const !== undefined) value = s.const;
  else if (s.enum) value = s.enum[0];
  else if (s.type === 'string') value = exampleText(s, path);
  else if (s.type === 'integer' || s.type === 'number') value = Math.min(Math.max(s.minimum ?? 1, 1), s.maximum ?? 1);
  else if (s.type === 'boolean') value = true;
  else if (s.type === 'null') value = null;
  else if (s.type === 'array')
    value = Array.from({ length: Math.max(1, s.minItems ?? 0) }, (_, i) => build(s.items ?? {}, [...path, String(i)], slots, resolve));
  else if (s.type === 'object') {
    const object: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(s.properties ?? {})) object[key] = build(property, [...path, key], slots, resolve);
    for (const [pattern, property] of Object.entries(s.patternProperties ?? {})) {
      const key = ['key1', 'docs'].find((k) => new RegExp(pattern, 'u').test(k)) ?? fail(`no key for ${pattern} at ${path.join('.')}`);
      object[key] = build(property, [...path, key], slots, resolve);
    }
    value = object;
  } else value = 'value'; // free-form (unknown) JSON
  slots.push({ path, schema: s, value });
  return value;
}

function exampleText(s: Schema, path: string[]): string {
  const fits = (text: string) =>
    text.length >= (s.minLength ?? 0) && text.length <= (s.maxLength ?? Infinity) && (!s.pattern || new RegExp(s.pattern, 'u').test(text));
  const given = (s.examples ?? []).filter((e): e is string => typeof e === 'string');
  return ['abc', 'a'.repeat(64), 'b'.repeat(40), 'https://example.com/x', ...given].find(fits) ?? fail(`no example text for ${path.join('.')}`);
}

/** Values one step over the slot's bounds, still well inside the body limit. */
function overLimitValues(slot: Slot): Array<{ value: unknown; what: string }> {
  const { schema, value } = slot;
  const out: Array<{ value: unknown; what: string }> = [];
  if (typeof schema.maxLength === 'number') {
    // Code points, as the validator counts them: an astral character is one, not two.
    for (const char of ['x', 'é', '✓', '😀'])
      out.push({ value: char.repeat(schema.maxLength + 1), what: `${schema.maxLength + 1} × ${char} (maxLength ${schema.maxLength})` });
  }
  if (typeof schema.maxItems === 'number' && Array.isArray(value)) {
    out.push({ value: Array.from({ length: schema.maxItems + 1 }, () => value[0]), what: `${schema.maxItems + 1} items (maxItems ${schema.maxItems})` });
    out.push({ value: Array.from({ length: schema.maxItems + 1 }, () => 0), what: `${schema.maxItems + 1} zeros (maxItems ${schema.maxItems})` });
  }
  if (typeof schema.maxProperties === 'number' && value && typeof value === 'object') {
    const [first] = Object.values(value);
    out.push({
      value: Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`key${i}`, first])),
      what: `${schema.maxProperties + 1} keys (maxProperties ${schema.maxProperties})`,
    });
  }
  return out;
}

/** A NUL or a lone surrogate put into one string value or one object key of the example. */
function badText(example: unknown, slots: Slot[]): fc.Arbitrary<DataViolation> {
  const strings = slots.filter((slot) => typeof slot.value === 'string');
  const objects = slots.filter((slot) => jsonType(slot.value) === 'object');
  // As many NULs as surrogates: high, low, and a pair in the wrong order.
  const bad = fc.oneof(fc.constant('\u0000'), fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800'));
  const category = (text: string): ViolationCategory => (text === '\u0000' ? 'nul-character' : 'lone-surrogate');
  const inValue = fc.tuple(fc.constantFrom(...strings), bad, fc.nat()).map(([slot, text, at]) => {
    const old = slot.value as string;
    const i = at % (old.length + 1);
    return violation(category(text), setAt(example, slot.path, old.slice(0, i) + text + old.slice(i)), slot.path, `${escape(text)} at ${i}`);
  });
  const inKey = fc
    .tuple(fc.constantFrom(...objects), bad)
    .map(([slot, text]) => violation(category(text), setAt(example, [...slot.path, `key${text}`], 'value'), slot.path, `${escape(text)} in a key`));
  return objects.length ? fc.oneof({ arbitrary: inValue, weight: 3 }, { arbitrary: inKey, weight: 1 }) : inValue;
}

const escape = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

function violation(category: ViolationCategory, data: unknown, path: string[], why: string): DataViolation {
  return { category, data, field: path.join('.'), why: `${category} ${path.join('.') || '(data)'}: ${why}` };
}

/** A copy of `root` with the value at `path` replaced (or added). */
function setAt(root: unknown, path: string[], value: unknown): unknown {
  if (!path.length) return value;
  const copy = structuredClone(root) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

function removeAt(root: unknown, path: string[]): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  delete node[path.at(-1)!];
  return copy;
}

function fail(message: string): never {
  throw new Error(`contract-violations: ${message}`);
}
