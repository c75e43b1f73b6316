import { expect } from 'chai';
import { parseTemplate, TemplateError, templateYaml } from './template.ts';

const problem = (text: string) => {
  try {
    parseTemplate(text);
  } catch (error) {
    expect(error).to.be.instanceOf(TemplateError);
    return { line: (error as TemplateError).line, message: (error as TemplateError).problem };
  }
  throw new Error('the template was accepted');
};

describe('flow templates (YAML, version 1)', () => {
  it('parses trail attestations and artifacts with their attestations', () => {
    const model = parseTemplate(
      [
        '# yaml-language-server: $schema=https://example.com/v1.json',
        'version: 1',
        'trail:',
        '  attestations:',
        '  - name: jira-ticket',
        '    type: jira',
        '  - name: anything',
        "    type: '*'",
        '  artifacts:',
        '  - name: backend',
        '    attestations:',
        '    - name: unit-tests',
        '      type: junit',
        '    - name: coverage',
        '      type: custom:coverage-metrics',
        '  - name: frontend',
      ].join('\n'),
    );
    expect(model).to.deep.equal({
      version: 1,
      trail: {
        attestations: [
          { name: 'jira-ticket', type: 'jira' },
          { name: 'anything', type: '*' },
        ],
        artifacts: [
          {
            name: 'backend',
            attestations: [
              { name: 'unit-tests', type: 'junit' },
              { name: 'coverage', type: 'custom:coverage-metrics' },
            ],
          },
          { name: 'frontend', attestations: [] },
        ],
      },
    });
  });

  it('round-trips the YAML it writes for legacy templates', () => {
    const model = { version: 1 as const, trail: { attestations: [{ name: 'unit-test', type: '*' }], artifacts: [] } };
    expect(parseTemplate(templateYaml(model))).to.deep.equal(model);
  });

  it('takes `version: 1` alone (kosli create flow --use-empty-template) as a trail that requires nothing', () => {
    expect(parseTemplate('version: 1').trail).to.deep.equal({ attestations: [], artifacts: [] });
  });

  it('names the problem and its line', () => {
    expect(problem('version: 1\ntrail:\n  attestations:\n  - name: unit\n')).to.deep.equal({ line: 4, message: 'trail.attestations[0].type is required' });
    expect(problem('version: 1\ntrail:\n  attestations:\n  - name: unit\n    type: junit\n  - name: lint\n    type: eslint\n')).to.deep.equal({
      line: 7,
      message: "trail.attestations[1].type 'eslint' is not a known type (*, generic, jira, junit, pull_request, snyk, sonar, decision, sbom, custom:<name>)",
    });
    expect(problem('version: 1\ntrail:\n  artifacts:\n  - name: app\n    attestations:\n    - name: bad name\n      type: junit\n')).to.deep.equal({
      line: 6,
      message: "trail.artifacts[0].attestations[0].name 'bad name' is not a valid attestation name (letters, digits, -, _ and ,)",
    });
    expect(problem('version: 1\ntrail:\n  attestation:\n  - name: x\n')).to.deep.equal({
      line: 3,
      message: "trail: unknown key 'attestation' (expected attestations, artifacts)",
    });
    expect(problem('version: 2\ntrail: {}\n')).to.deep.equal({ line: 1, message: 'version must be 1' });
    expect(problem('trail: {}\n')).to.deep.equal({ line: 1, message: 'version is required (version: 1)' });
    expect(problem('version: 1\ntrail:\n  attestations: unit\n')).to.deep.equal({ line: 3, message: 'trail.attestations must be a list' });
    expect(problem('version: 1\ntrail:\n  attestations:\n  - name: a\n    type: junit\n  - name: a\n    type: generic\n')).to.deep.equal({
      line: 6,
      message: "trail.attestations[1].name 'a' appears twice in trail.attestations",
    });
    expect(problem('version: 1\ntrail:\n  artifacts:\n  - name: app\n  - name: app\n')).to.deep.equal({
      line: 5,
      message: "trail.artifacts[1].name 'app' appears twice in trail.artifacts",
    });
  });

  it('reports YAML syntax errors, duplicate keys, several documents and empty files with their line', () => {
    expect(problem('version: 1\ntrail:\n  attestations:\n  - name: x\n   type: junit\n')).to.deep.equal({
      line: 5,
      message: 'Sequence item without - indicator',
    });
    expect(problem('version: 1\ntrail:\n\tattestations: []\n')).to.deep.equal({ line: 3, message: 'Tabs are not allowed as indentation' });
    expect(problem('version: 1\nversion: 1\n')).to.deep.equal({ line: 2, message: 'Map keys must be unique' });
    expect(problem('version: 1\ntrail: {}\n---\nversion: 1\n').line).to.equal(3);
    expect(problem('')).to.deep.equal({ line: 1, message: 'the template is empty' });
    expect(problem('- a\n- b\n')).to.deep.equal({ line: 1, message: 'the template must be a mapping' });
    expect(problem('version: 1\ntrail: &t {}\nother: *t\n')).to.deep.equal({ line: 2, message: 'anchors (&) and aliases (*) are not accepted in a template' });
    expect(problem('version: 1\ntrail:\n  attestations: *missing\n').line).to.equal(3);
  });

  it('accepts an empty trail and empty lists', () => {
    expect(parseTemplate('version: 1\ntrail:\n  attestations:\n  artifacts: []\n')).to.deep.equal({ version: 1, trail: { attestations: [], artifacts: [] } });
  });
});
