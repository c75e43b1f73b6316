/**
 * What the custom attestation type operations share: reading a definition (data_json and the
 * type_schema file) and checking it on the judge's thread, and judging an attestation's data by
 * the latest version of its type.
 */
import type { CustomEvaluationBody } from '@trailproof/schema';
import { customTypeJudge, JudgeBusyError } from '../domain/custom-types/judge-thread.ts';
import { ApiError, badRequest, notFound } from '../http/errors.ts';
import type { UploadedFile } from '../plugin.ts';
import { canonicalJson, sha256 } from '../store/queries/chain.ts';
import type { AttestationTypeDefinition, AttestationTypeVersionRow } from '../store/queries/attestation-types.ts';
import type { StoreUses } from '../store/types.ts';

/** Deepest nesting accepted in a type_schema file (data_json has its own bound): deeper JSON is not a schema but an attack on Ajv's compiler and its stack. */
export const maxJsonDepth = 64;

/** How deeply `value` nests (objects and arrays), counted without recursion so that any input is safe to measure. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > maxJsonDepth) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The 503 a full judge answers (the CLI retries it). */
async function judging<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof JudgeBusyError) throw new ApiError(503, error.message, undefined, { 'Retry-After': '1' });
    throw error;
  }
}

interface DefinitionInput {
  description?: string;
  evaluator?: { content_type: 'jq'; rules: string[] } | null;
  summary?: Array<{ name: string; expression: string }> | null;
}

/** The definition to save: the schema must be JSON and a JSON Schema, and each rule and summary expression must compile (400 naming what does not). */
export async function readDefinition(data: DefinitionInput, schemaFile: UploadedFile | undefined): Promise<AttestationTypeDefinition> {
  let schema: unknown = null;
  const schemaText = schemaFile ? schemaFile.buffer.toString('utf8') : null;
  if (schemaText !== null) {
    try {
      schema = JSON.parse(schemaText);
    } catch (error) {
      throw badRequest('type_schema is not JSON', { type_schema: (error as Error).message });
    }
    if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
      throw badRequest('type_schema must be a JSON Schema (an object or a boolean)', { type_schema: 'not an object' });
    }
    if (jsonDepth(schema) > maxJsonDepth) throw badRequest(`type_schema nests deeper than ${maxJsonDepth} levels`, { type_schema: 'too deeply nested' });
  }
  const evaluator = data.evaluator ?? null;
  const summary = data.summary ?? null;
  const expressions = [...(evaluator?.rules ?? []), ...(summary ?? []).map((s) => s.expression)];
  const problems = await judging(() => customTypeJudge.check(schemaText === null ? null : JSON.stringify(schema), expressions));
  if (problems.length) throw badRequest('The attestation type is not valid', { type: problems.join('; ') });
  const judges = { type_schema: schema, evaluator, summary };
  return {
    description: data.description ?? null,
    typeSchema: schemaText === null ? null : JSON.stringify(schema),
    evaluator: evaluator && JSON.stringify(evaluator),
    summary: summary && JSON.stringify(summary),
    sha256: sha256(canonicalJson(judges)),
  };
}

/** Data larger than this goes to jq as an argument on its stack, which holds about 1 MiB: refused before it could crash the engine. */
const maxJudgedDataBytes = 640 * 1024;

/** The latest version of the organisation's type, which judges new attestations (404 without one, 400 when archived). */
export async function latestVersionOf(
  store: StoreUses<readonly ['findAttestationType', 'attestationTypeVersions']>,
  organizationId: number,
  name: string,
): Promise<AttestationTypeVersionRow> {
  const type = await store.findAttestationType(organizationId, name);
  if (!type) throw notFound(`Custom attestation type '${name}' not found: create it first (kosli create attestation-type ${name})`);
  if (type.archived) throw badRequest(`Custom attestation type '${name}' is archived`, { type_name: `'${name}' is archived` });
  return (await store.attestationTypeVersions([type.id], 'latest')).get(type.id)![0]!;
}

/** How the version judges `data`: its schema errors and each rule's result. */
export async function judgeData(version: AttestationTypeVersionRow, data: unknown): Promise<CustomEvaluationBody> {
  const rules: string[] = version.evaluator ? (JSON.parse(version.evaluator) as { rules: string[] }).rules : [];
  const text = JSON.stringify(data ?? null);
  if (rules.length && Buffer.byteLength(text) > maxJudgedDataBytes) {
    throw badRequest(`attestation_data judged by jq rules may be at most ${maxJudgedDataBytes / 1024} KiB of JSON`, { attestation_data: 'too large' });
  }
  const judged = await judging(() => customTypeJudge.judge(version.typeSchema, rules, text));
  return {
    type_version: version.version,
    type_sha256: version.sha256,
    schema_errors: judged.schemaErrors,
    rules: rules.map((rule, i) => ({ rule, ...(judged.rules[i] ?? { passed: false, output: null, error: 'not run' }) })),
  };
}

/** Compliant when the data matched the schema and every rule gave true. */
export const judgedCompliant = (e: CustomEvaluationBody) => e.schema_errors.length === 0 && e.rules.every((r) => r.passed);
