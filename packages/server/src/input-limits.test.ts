import { expect } from 'chai';
import { sharedSchemas, type Operation } from '@trailproof/schema';
import { defaultPlugins } from '@trailproof/server';

/** A JSON Schema as the contract holds it (a TypeBox schema: plain JSON Schema keywords). */
type TSchema = Record<string, any>;

/**
 * Every input the server accepts is bounded: each string has a maxLength (or is one fixed
 * value), each array a maxItems, each free-form object a maxProperties. Checked over every
 * operation served by default, following $refs.
 */
describe('input limits in every schema', () => {
  const operations: Operation[] = defaultPlugins.map((p) => p.operation);
  const named = new Map<string, TSchema>();
  for (const schema of [...sharedSchemas, ...operations.flatMap((o) => o.schemas ?? [])]) if (schema.$id) named.set(schema.$id, schema);

  function unbounded(schema: TSchema, path: string, seen: Set<TSchema>): string[] {
    if (seen.has(schema)) return [];
    seen.add(schema);
    if (typeof schema.$ref === 'string') {
      const target = named.get(schema.$ref);
      return target ? unbounded(target, path, seen) : [`${path}: unresolved $ref ${schema.$ref}`];
    }
    const problems: string[] = [];
    const children = (key: string, list: unknown) =>
      (Array.isArray(list) ? list : []).forEach((s, i) => problems.push(...unbounded(s as TSchema, `${path}.${key}[${i}]`, seen)));
    children('anyOf', schema.anyOf);
    children('oneOf', schema.oneOf);
    children('allOf', schema.allOf);
    if (schema.type === 'string' && schema.maxLength === undefined && schema.const === undefined && schema.enum === undefined)
      problems.push(`${path}: string without maxLength`);
    if (schema.type === 'array') {
      if (schema.maxItems === undefined) problems.push(`${path}: array without maxItems`);
      if (schema.items) problems.push(...unbounded(schema.items as TSchema, `${path}[]`, seen));
    }
    if (schema.type === 'object') {
      for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>))
        problems.push(...unbounded(property, `${path}.${key}`, seen));
      const open = schema.additionalProperties !== false || schema.patternProperties !== undefined;
      // An object chosen among branches (oneOf/anyOf) is bounded by them, checked above.
      const branched = schema.oneOf !== undefined || schema.anyOf !== undefined;
      if (open && !branched && schema.properties === undefined && schema.maxProperties === undefined)
        problems.push(`${path}: free-form object without maxProperties`);
      for (const [pattern, value] of Object.entries((schema.patternProperties ?? {}) as Record<string, TSchema>))
        problems.push(...unbounded(value, `${path}{${pattern}}`, seen));
      if (typeof schema.additionalProperties === 'object') problems.push(...unbounded(schema.additionalProperties as TSchema, `${path}{*}`, seen));
    }
    return problems;
  }

  for (const operation of operations) {
    it(`${operation.id}: params, query and body are bounded`, () => {
      const problems = [
        ...unbounded(operation.params, 'params', new Set()),
        ...unbounded(operation.query, 'query', new Set()),
        ...(operation.body ? unbounded(operation.body.data, 'body', new Set()) : []),
      ];
      expect(problems).to.deep.equal([]);
      if (operation.body?.kind === 'multipart') for (const file of Object.values(operation.body.files)) expect(file.maxBytes).to.be.at.most(10 * 1024 * 1024);
    });
  }
});
