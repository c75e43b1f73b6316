/**
 * Flow templates: YAML, version 1.
 *
 *   version: 1
 *   trail:
 *     attestations: [{ name, type }]
 *     artifacts: [{ name, attestations: [{ name, type }] }]
 *
 * Parsing walks the YAML node tree (not the plain value) so that every problem is reported with
 * the line it is on; a client fixing a template needs the line more than anything else.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import { limits, type Template } from '@trailproof/schema';
import { templateBoundProblem } from './template-bounds.ts';

export interface TemplateRequirement {
  name: string;
  type: string;
}
export interface TemplateModel {
  version: 1;
  trail: { attestations: TemplateRequirement[]; artifacts: Array<{ name: string; attestations: TemplateRequirement[] }> };
}

/** A template that does not validate: what is wrong and on which line (1-based). */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

const namePattern = /^[a-zA-Z0-9\-_,]+$/;
/** The reference's types, `*` for any type, and `custom:<name>` for custom attestation types. */
const typePattern = /^(?:\*|generic|jira|junit|pull_request|snyk|sonar|decision|sbom|custom:[A-Za-z0-9][A-Za-z0-9_.~-]*)$/;

/** Parses and validates a template; throws `TemplateError` naming the first problem and its line. */
export function parseTemplate(text: string): TemplateModel {
  const bound = templateBoundProblem(text);
  if (bound) throw new TemplateError(bound.line, bound.problem);
  const lines = new LineCounter();
  // Duplicate keys are found by `mapping` below, in one pass: the library's `uniqueKeys` compares
  // every key with every other one.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line);
  const first = doc.errors[0];
  if (first) {
    const problem = first.code === 'MULTIPLE_DOCS' ? 'a template is a single YAML document' : first.message.replace(/\.$/, '');
    throw new TemplateError(lineAt(first.pos[0]), problem);
  }
  const lineOf = (node: Node | null | undefined, fallback: number) => (node?.range ? lineAt(node.range[0]) : fallback);

  /** The keys of a mapping with their nodes; anything else is an error. */
  const mapping = (node: unknown, path: string, line: number, allowed: string[]) => {
    if (isAlias(node)) throw new TemplateError(lineOf(node, line), `${path}: aliases are not accepted`);
    if (!isMap(node)) throw new TemplateError(lineOf(node as Node, line), `${path} must be a mapping`);
    const out = new Map<string, { value: Node | null; line: number }>();
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const keyLine = lineOf(key, lineOf(node, line));
      if (!isScalar(key) || typeof key.value !== 'string') throw new TemplateError(keyLine, `${path}: keys must be text`);
      if (!allowed.includes(key.value)) throw new TemplateError(keyLine, `${path}: unknown key '${key.value}' (expected ${allowed.join(', ')})`);
      if (out.has(key.value)) throw new TemplateError(keyLine, 'Map keys must be unique');
      out.set(key.value, { value: pair.value as Node | null, line: keyLine });
    }
    return { entries: out, line: lineOf(node, line) };
  };
  const textField = (entry: { value: Node | null; line: number } | undefined, path: string, line: number, pattern: RegExp, what: string) => {
    if (!entry) throw new TemplateError(line, `${path} is required`);
    const { value } = entry;
    if (!isScalar(value) || typeof value.value !== 'string' || value.value === '') throw new TemplateError(entry.line, `${path} must be text`);
    if (value.value.length > limits.name) throw new TemplateError(entry.line, `${path} must be at most ${limits.name} characters`);
    if (!pattern.test(value.value)) throw new TemplateError(entry.line, `${path} '${value.value}' is not ${what}`);
    return value.value;
  };
  const list = (entry: { value: Node | null; line: number } | undefined, path: string) => {
    if (!entry || entry.value === null || (isScalar(entry.value) && entry.value.value === null)) return [];
    if (!isSeq(entry.value)) throw new TemplateError(entry.line, `${path} must be a list`);
    if (entry.value.items.length > limits.smallArray) throw new TemplateError(entry.line, `${path} may have at most ${limits.smallArray} entries`);
    return entry.value.items as Array<Node | null>;
  };
  const requirements = (entry: { value: Node | null; line: number } | undefined, path: string) => {
    const seen = new Set<string>();
    return list(entry, path).map((item, i) => {
      const at = `${path}[${i}]`;
      const { entries, line } = mapping(item, at, entry!.line, ['name', 'type']);
      const name = textField(entries.get('name'), `${at}.name`, line, namePattern, 'a valid attestation name (letters, digits, -, _ and ,)');
      const type = textField(
        entries.get('type'),
        `${at}.type`,
        line,
        typePattern,
        'a known type (*, generic, jira, junit, pull_request, snyk, sonar, decision, sbom, custom:<name>)',
      );
      if (seen.has(name)) throw new TemplateError(line, `${at}.name '${name}' appears twice in ${path}`);
      seen.add(name);
      return { name, type };
    });
  };

  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) throw new TemplateError(1, 'the template is empty');
  const root = mapping(doc.contents, 'the template', 1, ['version', 'trail']);
  const version = root.entries.get('version');
  if (!version) throw new TemplateError(root.line, 'version is required (version: 1)');
  if (!isScalar(version.value) || version.value.value !== 1) throw new TemplateError(version.line, 'version must be 1');
  const trailEntry = root.entries.get('trail');
  // `version: 1` alone (what `kosli create flow --use-empty-template` sends) requires nothing of a trail.
  if (!trailEntry) return { version: 1, trail: { attestations: [], artifacts: [] } };
  const trail = mapping(trailEntry.value, 'trail', trailEntry.line, ['attestations', 'artifacts']);
  const attestations = requirements(trail.entries.get('attestations'), 'trail.attestations');
  const artifactNames = new Set<string>();
  const artifactsEntry = trail.entries.get('artifacts');
  const artifacts = list(artifactsEntry, 'trail.artifacts').map((item, i) => {
    const at = `trail.artifacts[${i}]`;
    const { entries, line } = mapping(item, at, artifactsEntry!.line, ['name', 'attestations']);
    const name = textField(entries.get('name'), `${at}.name`, line, namePattern, 'a valid artifact name (letters, digits, -, _ and ,)');
    if (artifactNames.has(name)) throw new TemplateError(line, `${at}.name '${name}' appears twice in trail.artifacts`);
    artifactNames.add(name);
    return { name, attestations: requirements(entries.get('attestations'), `${at}.attestations`) };
  });
  return { version: 1, trail: { attestations, artifacts } };
}

/** The YAML text of a template built from requirements (the legacy list of names). */
export function templateYaml(model: TemplateModel): string {
  return stringify(model);
}

/** A template as the API answers it. */
export function templateView(model: TemplateModel, content: string | null): Template {
  return { version: 1, trail: model.trail, content };
}
