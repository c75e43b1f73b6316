import { expect } from 'chai';
import { templateBoundProblem, templateBounds } from './template-bounds.ts';
import { parseTemplate, TemplateError } from './template.ts';

const realTemplate = [
  'version: 1 # a comment: with a colon',
  'trail:',
  '  attestations:',
  '  - name: jira-ticket',
  '    type: jira',
  '  - {name: "pr", type: pull_request}',
  '  artifacts:',
  '  - name: backend',
  '    attestations:',
  '    - name: unit-tests',
  '      type: junit',
  '    - name: coverage',
  '      type: custom:coverage-metrics',
].join('\n');

const keys = (n: number) => 'version: 1\n' + Array.from({ length: n }, (_, i) => `k${i}: 1\n`).join('');
/** `levels` mappings, each indented under the one before. */
const nestedMaps = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' x\n';

describe('flow template bounds (checked before the YAML library parses)', () => {
  it('accepts real templates, block and flow style', () => {
    expect(templateBoundProblem(realTemplate)).to.equal(undefined);
    expect(parseTemplate(realTemplate).trail.artifacts[0]!.attestations).to.have.length(2);
  });

  it('refuses more bytes than the bound, counted in UTF-8', () => {
    const padding = (char: string, bytes: number) => `version: 1\n# ${char.repeat(bytes)}\n`;
    expect(templateBoundProblem(padding('x', templateBounds.bytes - 20))).to.equal(undefined);
    expect(templateBoundProblem(padding('x', templateBounds.bytes))).to.deep.equal({
      line: 1,
      problem: `a template may be at most ${templateBounds.bytes} bytes`,
    });
    // 'é' is two bytes: half as many characters cross the bound.
    expect(templateBoundProblem(padding('é', templateBounds.bytes / 2))?.problem).to.match(/at most 65536 bytes/);
  });

  it('refuses more keys and entries than the bound, naming the line where it was crossed', () => {
    expect(templateBoundProblem(keys(templateBounds.entries - 1))).to.equal(undefined);
    expect(templateBoundProblem(keys(templateBounds.entries))).to.deep.equal({
      line: templateBounds.entries + 1,
      problem: `a template may have at most ${templateBounds.entries} keys and list entries`,
    });
    expect(templateBoundProblem(`[${'1,'.repeat(templateBounds.entries)}1]`)?.problem).to.match(/at most 2000 keys and list entries/);
    expect(templateBoundProblem(`{${Array.from({ length: templateBounds.entries + 1 }, (_, i) => `k${i}`).join(', ')}}`)?.problem).to.match(
      /keys and list entries/,
    );
  });

  it('refuses deeper nesting than the bound, in flow and in block style', () => {
    const { depth } = templateBounds;
    const problem = `a template may nest at most ${depth} levels`;
    expect(templateBoundProblem('['.repeat(depth) + ']'.repeat(depth))).to.equal(undefined);
    expect(templateBoundProblem('['.repeat(depth + 1) + ']'.repeat(depth + 1))).to.deep.equal({ line: 1, problem });
    expect(templateBoundProblem('- '.repeat(depth) + 'x')).to.equal(undefined);
    expect(templateBoundProblem('- '.repeat(depth + 1) + 'x')).to.deep.equal({ line: 1, problem });
    expect(templateBoundProblem(nestedMaps(depth))).to.equal(undefined);
    expect(templateBoundProblem(nestedMaps(depth + 1))).to.deep.equal({ line: depth + 1, problem });
    // A list at its key's column is a level of its own: `k0:` then n lines `- kN:` nest 1 + 2n levels.
    const listsUnderKeys = (n: number) => ['k0:', ...Array.from({ length: n }, (_, i) => `${'  '.repeat(i)}- k${i + 1}:`)].join('\n') + ' x\n';
    expect(templateBoundProblem(listsUnderKeys(7))).to.equal(undefined);
    expect(templateBoundProblem(listsUnderKeys(8))).to.deep.equal({ line: 9, problem });
    // Siblings at one column do not add up.
    expect(templateBoundProblem('a:\n- x\n- y\nb:\n- z\nc: 1\n')).to.equal(undefined);
  });

  it('refuses anchors and aliases, which a template never needs', () => {
    expect(templateBoundProblem('version: 1\ntrail: &t\n  attestations: []\n')).to.deep.equal({
      line: 2,
      problem: 'anchors (&) and aliases (*) are not accepted in a template',
    });
    expect(templateBoundProblem('a: [1]\nb: *a\n')?.line).to.equal(2);
    // In quoted text they are only characters.
    expect(templateBoundProblem('version: 1\nnote: "&a *b"\n')).to.equal(undefined);
  });

  it('a template nested 200,000 levels or with 20,000 keys is a TemplateError naming the bound, not a stack overflow', () => {
    for (const text of ['['.repeat(200_000) + ']'.repeat(200_000), '['.repeat(30_000) + ']'.repeat(30_000), keys(20_000), keys(8_000)]) {
      expect(() => parseTemplate(text)).to.throw(TemplateError, /at most/);
    }
  });

  it('duplicate keys are still refused, with their line', () => {
    expect(() => parseTemplate('version: 1\nversion: 1\n')).to.throw(TemplateError, 'line 2: Map keys must be unique');
    expect(() => parseTemplate('version: 1\ntrail:\n  attestations: []\n  attestations: []\n')).to.throw(TemplateError, 'line 4: Map keys must be unique');
  });
});
