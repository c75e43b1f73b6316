/**
 * One Ajv instance for the whole contract: shared and operation schemas are registered once by
 * `$id` on the first use of any operation (two different schemas with one `$id` are refused when
 * the validator is built). Each operation's params, query and body validators are compiled on
 * their first use and kept, never per request: compiling all of them took about half of the
 * server's start-up, and a process answers only some of its operations.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Operation } from './contract.ts';
import { sharedSchemas } from './shared.ts';

/** Field → message, as in the error body's `errors`. */
export type FieldErrors = Record<string, string>;
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export interface OperationValidators {
  /** Validates path parameters (strings, coerced to the schema's numbers). Fields are prefixed `path.`. */
  params(raw: Record<string, string>): Validation<Record<string, unknown>>;
  /** Validates a parsed query (`string | string[]` values), coerced and with defaults. Fields are prefixed `query.`. */
  query(raw: Record<string, string | string[] | undefined>): Validation<Record<string, unknown>>;
  /** Validates the JSON data of the body. Fields are named by their path (`junit_results.0.total`). */
  data(value: unknown): Validation<unknown>;
}

/** Largest number of field errors reported for one request. */
const maxReportedErrors = 50;

/** Builds the validators of the given operations with one Ajv instance. */
export function createValidator(operations: readonly Operation[]): (operationId: string) => OperationValidators {
  const registered = new Map<string, TSchema>();
  const register = (schema: TSchema) => {
    const id = schema.$id;
    if (!id) throw new Error('a named schema needs an $id');
    const known = registered.get(id);
    if (known === schema) return;
    if (known) throw new Error(`two different schemas share the $id '${id}'`);
    registered.set(id, schema);
  };
  sharedSchemas.forEach(register);
  operations.forEach((operation) => operation.schemas?.forEach(register));
  // Built on the first use of any operation: building it and checking every named schema against
  // the meta-schema took a tenth of a second of every start.
  let instance: Ajv | undefined;
  const ajv = () => {
    if (instance) return instance;
    // `verbose` keeps the offending value on each error, so a message can name it ('foo?$bar' ...).
    // `discriminator`: a body that names its type (`type_name`) is checked against that type alone, and its errors are that type's.
    const built = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false, verbose: true, discriminator: true });
    for (const schema of registered.values()) built.addSchema(schema);
    return (instance = built);
  };
  const compiledOnFirstUse = (schema: TSchema): (() => ValidateFunction) => {
    let validate: ValidateFunction | undefined;
    return () => (validate ??= ajv().compile(schema));
  };

  const byId = new Map<string, OperationValidators>();
  for (const operation of operations) {
    const params = compiledOnFirstUse(operation.params);
    const query = compiledOnFirstUse(operation.query);
    const data = operation.body ? compiledOnFirstUse(operation.body.data) : undefined;
    byId.set(operation.id, {
      params: (raw) => run(params(), coerceStrings(operation.params, raw), 'path.'),
      query: (raw) => {
        // An unknown query key is most often a misspelt filter (`env_nme`): ignoring it would answer everything.
        const unknown = Object.keys(raw).filter((key) => raw[key] !== undefined && !Object.hasOwn(operation.query.properties, key));
        const result = run<Record<string, unknown>>(query(), coerceStrings(operation.query, raw), 'query.');
        if (!unknown.length) return result;
        const errors = result.ok ? fieldMap() : result.errors;
        for (const key of unknown.slice(0, maxReportedErrors)) errors[`query.${key}`] = 'is not a known query parameter';
        return { ok: false, errors };
      },
      data: (value) => (data ? run(data(), value, '') : { ok: true, value: undefined }),
    });
  }
  return (operationId) => {
    const validators = byId.get(operationId);
    if (!validators) throw new Error(`no validators for operation '${operationId}'`);
    return validators;
  };
}

function run<T>(validate: ValidateFunction, value: unknown, prefix: string): Validation<T> {
  if (validate(value)) return { ok: true, value: value as T };
  return { ok: false, errors: fieldErrors(validate.errors ?? [], prefix) };
}

/** Turns Ajv errors into `{ "<prefix><path>": message }`, first message per field. */
export function fieldErrors(errors: readonly ErrorObject[], prefix: string): FieldErrors {
  const out = fieldMap();
  let count = 0;
  for (const error of errors) {
    // A union reports every branch; the branch errors are more useful than "must match a schema in anyOf".
    if (error.keyword === 'anyOf' && errors.length > 1) continue;
    // Optional fields accept null too; "must be null" never tells the client what to send.
    if (error.keyword === 'type' && error.params.type === 'null' && errors.length > 1) continue;
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = error.keyword === 'not' ? 'is not an allowed value' : (error.message ?? 'is invalid');
    if (error.keyword === 'required') segments.push(String(error.params.missingProperty)), (message = 'is required');
    if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty)), (message = 'is not a known field');
    // A discriminator's tag (`type_name`) that is not text or names no branch: the tag is the field at fault.
    if (error.keyword === 'discriminator') {
      segments.push(String(error.params.tag));
      message = error.params.error === 'mapping' ? 'is not a known type' : 'must be text naming the type';
    }
    if (error.keyword === 'enum' || (error.keyword === 'const' && error.params.allowedValue !== undefined)) {
      const allowed = error.params.allowedValues ?? [error.params.allowedValue];
      message = `must be one of: ${allowed.join(', ')}`;
    }
    // The real service names the value it refused (`'foo?$bar' does not match ...`), and clients print it.
    if (error.keyword === 'pattern' && typeof error.data === 'string') message = `${quoted(error.data)} does not match ${error.params.pattern}`;
    const path = segments.join('.');
    const key = path ? prefix + path : prefix ? prefix.slice(0, -1) : 'body';
    if (Object.hasOwn(out, key)) continue;
    out[key] = message;
    if (++count >= maxReportedErrors) break;
  }
  return unionLiterals(out, errors, prefix);
}

/**
 * Field → message with no prototype: a field named `__proto__` or `constructor` (an unknown field a
 * client sent) is then an entry like any other, not the object's prototype or an inherited key.
 */
const fieldMap = (): FieldErrors => Object.create(null) as FieldErrors;

/** A refused value as a message shows it: quoted, and cut short when long. */
const quoted = (value: string) => `'${value.length > 80 ? `${value.slice(0, 80)}...` : value}'`;

/** A union of literals reports one `const` error per branch; say once which values are allowed. */
function unionLiterals(out: FieldErrors, errors: readonly ErrorObject[], prefix: string): FieldErrors {
  const allowedByPath = new Map<string, unknown[]>();
  for (const error of errors) {
    if (error.keyword !== 'const') continue;
    const list = allowedByPath.get(error.instancePath) ?? [];
    list.push(error.params.allowedValue);
    allowedByPath.set(error.instancePath, list);
  }
  for (const [path, allowed] of allowedByPath) {
    if (allowed.length < 2) continue;
    const field =
      prefix +
      path
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .join('.');
    const sent = errors.find((e) => e.keyword === 'const' && e.instancePath === path)?.data;
    out[field] = `${typeof sent === 'string' ? `${quoted(sent)} is not allowed: ` : ''}must be one of: ${allowed.join(', ')}`;
  }
  return out;
}

/**
 * Query strings and path parameters arrive as text. Where the schema wants a number, an integer,
 * a boolean (`true`/`false`, in any case: clients of the reference send `True`) or an array,
 * convert what is unambiguous; leave the rest for the validator to reject.
 */
function coerceStrings(schema: TObject, raw: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const property = Object.hasOwn(schema.properties, key) ? (schema.properties[key] as TSchema) : undefined;
    if (!property) continue; // unknown keys are reported by the caller
    const wantsArray = property.type === 'array';
    const itemSchema: TSchema | undefined = wantsArray ? property.items : property;
    const convert = (text: string) => coerceScalar(itemSchema, text);
    if (wantsArray) out[key] = (Array.isArray(value) ? value : [value]).map(convert);
    else if (Array.isArray(value))
      out[key] = value.map(convert); // the validator says "must be ..." for a repeated scalar
    else out[key] = convert(value);
  }
  return out;
}

/**
 * Numbers as clients write them in a URL: plain decimal digits for an integer (an approval number
 * or id, a page), and a decimal fraction for a number (epoch seconds). No spaces, no exponents
 * (`1e3`, `6.2e1`), no `+`: a value read loosely names a different thing than the client meant.
 */
const integerText = /^-?\d{1,16}$/;
const numberText = /^-?\d{1,16}(?:\.\d{1,16})?$/;

function coerceScalar(schema: TSchema | undefined, text: string): unknown {
  if (!schema) return text;
  if (schema.type === 'integer' && integerText.test(text)) return Number(text);
  if (schema.type === 'number' && numberText.test(text)) return Number(text);
  if (schema.type === 'boolean' && /^(?:true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  return text;
}
