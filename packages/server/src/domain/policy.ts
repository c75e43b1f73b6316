/**
 * Environment policies: YAML validated as Kosli's schema v1 (docs `schemas/policy/v1.json`):
 *
 *   _schema: https://docs.kosli.com/schemas/policy/v1
 *   artifacts:
 *     provenance:       { required, exceptions: [{ if }] }
 *     trail-compliance: { required, exceptions: [{ if }] }
 *     attestations:     [{ type, name, if, must_be_compliant, for_control }]
 *   trailproof:         (our own, outside Kosli's `artifacts`, so Kosli's files stay as they are)
 *     four-eyes:        { required, exceptions: [{ if }] }
 *
 * Parsing walks the YAML node tree so that each problem names its field and line, and the text
 * is bounded before the YAML library sees it, as templates are (template-bounds.ts).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { limits } from '@trailproof/schema';
import { templateBoundProblem } from './template-bounds.ts';
import { type Expression, parseExpression, PolicyExpressionError } from './policy-expression.ts';

export interface BooleanRule {
  required: boolean;
  /** The rule is waived for an artifact when any of these is true. */
  exceptions: Expression[];
}

export interface AttestationRule {
  /** `generic`, `junit`, …, `custom:<name>`, `decision` or `*`. */
  type: string;
  /** `*` matches any name. */
  name: string;
  /** Required only when this is true (always when null). */
  if: Expression | null;
  must_be_compliant: boolean;
  /** The control a `decision` attestation must be for; null otherwise. */
  for_control: string | null;
}

export interface PolicyModel {
  _schema: string;
  artifacts: { provenance: BooleanRule; 'trail-compliance': BooleanRule; attestations: AttestationRule[] };
  /**
   * Trailproof's own rules, absent from policies that do not name them (so Kosli's files are
   * judged exactly as before). `four-eyes`: the artifact's commit is in a pull request approved
   * by someone other than the author of each of its commits (policy-evaluate.ts).
   */
  trailproof?: { 'four-eyes': BooleanRule };
}

/** A policy that does not validate: the field, its line (1-based) and what is wrong. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  constructor(
    readonly line: number,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`line ${line}: ${field}: ${problem}`);
  }
}

const builtInTypes = ['generic', 'junit', 'snyk', 'pull_request', 'jira', 'sonar'];
const customType = /^custom:[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** `…/v1` (Kosli's own testdata writes `https://kosli.com/schemas/policy/environment/v1`). */
const schemaUri = /^https?:\/\/[^\s/]+(?:\/[^\s/]+)*\/v([0-9]+)\/?$/;

type Entry = { value: Node | null; line: number };

/** Parses and validates a policy; throws `PolicyError` naming the first problem's field and line. */
export function parsePolicy(text: string): PolicyModel {
  const bound = templateBoundProblem(text, 'policy');
  if (bound) throw new PolicyError(bound.line, 'policy_file', bound.problem);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line);
  const first = doc.errors[0];
  if (first) throw new PolicyError(lineAt(first.pos[0]), 'policy_file', first.code === 'MULTIPLE_DOCS' ? 'a policy is a single YAML document' : first.message);
  const lineOf = (node: Node | null | undefined, fallback: number) => (node?.range ? lineAt(node.range[0]) : fallback);
  const isNull = (node: Node | null) => node === null || (isScalar(node) && node.value === null);

  const mapping = (node: Node | null, field: string, line: number, allowed: string[]): { entries: Map<string, Entry>; line: number } => {
    if (!isMap(node)) throw new PolicyError(lineOf(node, line), field, 'must be a mapping');
    const entries = new Map<string, Entry>();
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const keyLine = lineOf(key, lineOf(node, line));
      if (!isScalar(key) || typeof key.value !== 'string') throw new PolicyError(keyLine, field, 'keys must be text');
      const at = field === 'policy' ? key.value : `${field}.${key.value}`;
      if (!allowed.includes(key.value)) throw new PolicyError(keyLine, at, `unknown key (expected ${allowed.join(', ')})`);
      if (entries.has(key.value)) throw new PolicyError(keyLine, at, 'appears twice');
      entries.set(key.value, { value: pair.value as Node | null, line: keyLine });
    }
    return { entries, line: lineOf(node, line) };
  };
  const scalar = (entry: Entry | undefined, field: string, kind: 'string' | 'boolean', fallback: string | boolean | null): string | boolean | null => {
    if (!entry || isNull(entry.value)) return fallback;
    const value = isScalar(entry.value) ? entry.value.value : undefined;
    if (typeof value !== kind) throw new PolicyError(entry.line, field, kind === 'boolean' ? 'must be true or false' : 'must be text');
    if (kind === 'string' && (value as string).length > limits.name * 4)
      throw new PolicyError(entry.line, field, `must be at most ${limits.name * 4} characters`);
    return value as string | boolean;
  };
  const list = (entry: Entry | undefined, field: string): Array<Node | null> => {
    if (!entry || isNull(entry.value)) return [];
    if (!isSeq(entry.value)) throw new PolicyError(entry.line, field, 'must be a list');
    if (entry.value.items.length > limits.smallArray) throw new PolicyError(entry.line, field, `may have at most ${limits.smallArray} entries`);
    return entry.value.items as Array<Node | null>;
  };
  const expression = (entry: Entry | undefined, field: string): Expression | null => {
    const text = scalar(entry, field, 'string', null);
    if (text === null) return null;
    try {
      return parseExpression(text as string);
    } catch (error) {
      if (error instanceof PolicyExpressionError) throw new PolicyError(entry!.line, field, error.message);
      throw error;
    }
  };
  const booleanRule = (entry: Entry | undefined, field: string): BooleanRule => {
    if (!entry || isNull(entry.value)) return { required: false, exceptions: [] };
    const { entries, line } = mapping(entry.value, field, entry.line, ['required', 'exceptions']);
    const exceptions = list(entries.get('exceptions'), `${field}.exceptions`).map((item, i) => {
      const at = `${field}.exceptions[${i}]`;
      const exception = mapping(item, at, lineOf(item, line), ['if']);
      return expression(exception.entries.get('if'), `${at}.if`);
    });
    return { required: scalar(entries.get('required'), `${field}.required`, 'boolean', false) as boolean, exceptions: exceptions.filter((e) => e !== null) };
  };
  const attestationRule = (item: Node | null, at: string, fallbackLine: number): AttestationRule => {
    const { entries, line } = mapping(item, at, fallbackLine, ['type', 'name', 'if', 'must_be_compliant', 'for_control']);
    const type = scalar(entries.get('type'), `${at}.type`, 'string', null) as string | null;
    if (type === null) throw new PolicyError(line, `${at}.type`, 'is required');
    if (!(type === '*' || type === 'decision' || builtInTypes.includes(type) || customType.test(type)))
      throw new PolicyError(
        entries.get('type')!.line,
        `${at}.type`,
        `'${type}' is not a known type (${[...builtInTypes, 'custom:<name>', 'decision', '*'].join(', ')})`,
      );
    const name = scalar(entries.get('name'), `${at}.name`, 'string', '*') as string;
    if (name === '*' && type === '*') throw new PolicyError(line, at, "name and type may not both be '*'");
    const forControl = scalar(entries.get('for_control'), `${at}.for_control`, 'string', null) as string | null;
    if (forControl !== null && type !== 'decision')
      throw new PolicyError(entries.get('for_control')!.line, `${at}.for_control`, "is only valid when type is 'decision'");
    return {
      type,
      name,
      if: expression(entries.get('if'), `${at}.if`),
      must_be_compliant: scalar(entries.get('must_be_compliant'), `${at}.must_be_compliant`, 'boolean', true) as boolean,
      for_control: forControl,
    };
  };

  if (isNull(doc.contents as Node | null)) throw new PolicyError(1, '_schema', 'is required (the policy is empty)');
  const root = mapping(doc.contents as Node, 'policy', 1, ['_schema', 'artifacts', 'trailproof']);
  const schemaEntry = root.entries.get('_schema');
  const schema = scalar(schemaEntry, '_schema', 'string', null) as string | null;
  if (schema === null) throw new PolicyError(root.line, '_schema', 'is required (_schema: https://docs.kosli.com/schemas/policy/v1)');
  const version = schemaUri.exec(schema)?.[1];
  if (version === undefined) throw new PolicyError(schemaEntry!.line, '_schema', `'${schema}' is not a URL whose path ends with /v{n}`);
  if (version !== '1') throw new PolicyError(schemaEntry!.line, '_schema', `version v${version} is not supported (only v1)`);
  const artifactsEntry = root.entries.get('artifacts');
  const artifacts =
    artifactsEntry && !isNull(artifactsEntry.value)
      ? mapping(artifactsEntry.value, 'artifacts', artifactsEntry.line, ['provenance', 'trail-compliance', 'attestations']).entries
      : new Map<string, Entry>();
  const attestationsEntry = artifacts.get('attestations');
  const ownEntry = root.entries.get('trailproof');
  const own = ownEntry && !isNull(ownEntry.value) ? mapping(ownEntry.value, 'trailproof', ownEntry.line, ['four-eyes']).entries : undefined;
  return {
    _schema: schema,
    artifacts: {
      provenance: booleanRule(artifacts.get('provenance'), 'artifacts.provenance'),
      'trail-compliance': booleanRule(artifacts.get('trail-compliance'), 'artifacts.trail-compliance'),
      attestations: list(attestationsEntry, 'artifacts.attestations').map((item, i) =>
        attestationRule(item, `artifacts.attestations[${i}]`, lineOf(item, attestationsEntry!.line)),
      ),
    },
    ...(own ? { trailproof: { 'four-eyes': booleanRule(own.get('four-eyes'), 'trailproof.four-eyes') } } : {}),
  };
}
