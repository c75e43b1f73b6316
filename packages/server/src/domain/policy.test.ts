import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parsePolicy, PolicyError } from './policy.ts';
import { evaluatePolicy, type PolicyFacts, type TrailFact } from './policy-evaluate.ts';

const fixture = (name: string) => readFileSync(new URL(`../kosli-cli/fixtures/policy-files/${name}`, import.meta.url), 'utf8');
const header = '_schema: https://docs.kosli.com/schemas/policy/v1\n';
/** The reference's example (policy-reference/environment_policy.mdx). */
const referenceExample = `${header}
artifacts:
  provenance:
    required: true
    exceptions:
      - if: \${{ matches(artifact.name, "^datadog:.*") }}

  trail-compliance:
    required: true

  attestations:
    - name: security-scan
      type: snyk
    - name: pull-request
      type: pull_request
      if: \${{ flow.tags.risk-level == "high" }}
    - name: coverage
      type: custom:coverage-metrics
`;

const problem = (text: string): PolicyError => {
  try {
    parsePolicy(text);
  } catch (error) {
    expect(error).to.be.instanceOf(PolicyError);
    return error as PolicyError;
  }
  throw new Error('expected a PolicyError');
};

describe('environment policy YAML (schema v1)', () => {
  it("parses the CLI's testdata policies and the reference's example", () => {
    const cli = parsePolicy(fixture('test-policy.yml'));
    expect(cli._schema).to.equal('https://kosli.com/schemas/policy/environment/v1');
    expect(cli.artifacts.provenance.required).to.equal(true);
    expect(cli.artifacts['trail-compliance'].required).to.equal(true);
    const control = parsePolicy(fixture('test-policy-for-control.yml'));
    expect(control.artifacts.attestations[0]).to.deep.include({
      name: 'decision',
      type: 'decision',
      for_control: 'assert-artifact-ctl',
      must_be_compliant: true,
      if: null,
    });
    const example = parsePolicy(referenceExample);
    expect(example.artifacts.provenance.exceptions.map((e) => e.text)).to.deep.equal(['matches(artifact.name, "^datadog:.*")']);
    expect(example.artifacts.attestations.map((a) => a.type)).to.deep.equal(['snyk', 'pull_request', 'custom:coverage-metrics']);
    expect(example.artifacts.attestations[1]!.if!.text).to.equal('flow.tags.risk-level == "high"');
  });

  it('defaults what is left out: only _schema is required', () => {
    expect(parsePolicy(header).artifacts).to.deep.equal({
      provenance: { required: false, exceptions: [] },
      'trail-compliance': { required: false, exceptions: [] },
      attestations: [],
    });
    expect(parsePolicy(`${header}artifacts:\n  attestations:\n    - type: junit\n`).artifacts.attestations[0]!.name).to.equal('*');
  });

  it('names the field and line of each problem', () => {
    const cases: Array<[string, number, string, RegExp]> = [
      ['artifacts: {}\n', 1, '_schema', /is required/],
      ['_schema: https://docs.kosli.com/schemas/policy/v2\n', 1, '_schema', /v2 is not supported/],
      ['_schema: not a url\n', 1, '_schema', /path ends with/],
      [`${header}rules: []\n`, 2, 'rules', /unknown key/],
      [`${header}artifacts:\n  provenance:\n    required: yes please\n`, 4, 'artifacts.provenance.required', /true or false/],
      [`${header}artifacts:\n  attestations:\n    - name: x\n`, 4, 'artifacts.attestations[0].type', /is required/],
      [`${header}artifacts:\n  attestations:\n    - name: x\n      type: magic\n`, 5, 'artifacts.attestations[0].type', /not a known type/],
      [`${header}artifacts:\n  attestations:\n    - type: "*"\n`, 4, 'artifacts.attestations[0]', /may not both be/],
      [
        `${header}artifacts:\n  attestations:\n    - type: junit\n      for_control: c\n`,
        5,
        'artifacts.attestations[0].for_control',
        /only valid when type is 'decision'/,
      ],
      [`${header}artifacts:\n  attestations:\n    - type: junit\n      if: \${{ flow.name }}\n`, 5, 'artifacts.attestations[0].if', /expression 'flow.name'/],
      [`${header}artifacts:\n  trail-compliance:\n    exceptions:\n      - when: x\n`, 5, 'artifacts.trail-compliance.exceptions[0].when', /unknown key/],
      [`${header}artifacts:\n  attestations: junit\n`, 3, 'artifacts.attestations', /must be a list/],
      [`${header}_schema: again\n`, 2, '_schema', /appears twice/],
    ];
    for (const [text, line, field, message] of cases) {
      const error = problem(text);
      expect([error.line, error.field], text).to.deep.equal([line, field]);
      expect(error.problem, text).to.match(message);
    }
  });

  it('bounds the text before the YAML library parses it', () => {
    expect(problem(`${header}${'x'.repeat(70 * 1024)}`).problem).to.match(/a policy may be at most/);
    const deep = `${header}artifacts: ${'['.repeat(1000)}${']'.repeat(1000)}\n`;
    expect(problem(deep).problem).to.match(/a policy may nest at most/);
    expect(problem(`${header}a: &x 1\nb: *x\n`).problem).to.match(/aliases/);
  });
});

const artifact = { name: 'backend', fingerprint: 'f'.repeat(64) };
const trail = (over: Partial<TrailFact> = {}): TrailFact => ({
  flow: { name: 'runner', tags: { 'risk-level': 'high' } },
  trail: { name: 't1', compliant: true },
  attestations: [],
  ...over,
});
const judge = (yaml: string, facts: PolicyFacts) => evaluatePolicy(parsePolicy(header + yaml), facts);
const resolutions = (yaml: string, facts: PolicyFacts) => judge(yaml, facts).rule_evaluations.map((r) => r.resolutions.map((x) => x.type));

describe('evaluatePolicy', () => {
  it('provenance: no_provenance without a trail, rule_satisfied with one, waived by an exception', () => {
    const rule = 'artifacts:\n  provenance:\n    required: true\n    exceptions:\n      - if: ${{ matches(artifact.name, "^datadog:") }}\n';
    expect(judge(rule, { artifact, trails: [] })).to.deep.include({ compliant: false, status: 'NON-COMPLIANT' });
    expect(resolutions(rule, { artifact, trails: [] })[0]).to.deep.equal(['no_provenance']);
    expect(judge(rule, { artifact, trails: [trail()] }).compliant).to.equal(true);
    const waived = judge(rule, { artifact: { ...artifact, name: 'datadog:agent' }, trails: [] });
    expect(waived.compliant).to.equal(true);
    expect(waived.rule_evaluations[0]).to.deep.include({ ignored: true });
    expect(waived.rule_evaluations[0]!.resolutions[0]).to.deep.equal({
      type: 'rule_not_applicable',
      context: { exception: 'matches(artifact.name, "^datadog:")' },
    });
  });

  it('trail-compliance: non_compliant_in_trail names the flow and trail', () => {
    const rule = 'artifacts:\n  trail-compliance:\n    required: true\n';
    const result = judge(rule, { artifact, trails: [trail({ trail: { name: 't9', compliant: false } })] });
    expect(result.compliant).to.equal(false);
    expect(result.rule_evaluations[1]!.resolutions).to.deep.equal([{ type: 'non_compliant_in_trail', context: { flow_name: 'runner', trail_name: 't9' } }]);
    expect(resolutions(rule, { artifact, trails: [] })[1]).to.deep.equal(['no_provenance']);
    expect(judge(rule, { artifact, trails: [trail()] }).compliant).to.equal(true);
  });

  it('rules not required are ignored and not applicable', () => {
    const result = judge('', { artifact, trails: [] });
    expect(result.compliant).to.equal(true);
    expect(result.rule_evaluations.map((r) => [r.rule.type, r.ignored, r.resolutions[0]!.type])).to.deep.equal([
      ['provenance', true, 'rule_not_applicable'],
      ['trail-compliance', true, 'rule_not_applicable'],
    ]);
  });

  it('attestations: missing, non-compliant, satisfied, must_be_compliant false, by name and type wildcards', () => {
    const rule = 'artifacts:\n  attestations:\n    - name: unit-tests\n      type: junit\n';
    expect(resolutions(rule, { artifact, trails: [trail()] })[2]).to.deep.equal(['missing_attestation']);
    const failing = trail({ attestations: [{ name: 'unit-tests', type: 'junit', compliant: false }] });
    expect(resolutions(rule, { artifact, trails: [failing] })[2]).to.deep.equal(['non_compliant_attestation']);
    const lenient = 'artifacts:\n  attestations:\n    - name: unit-tests\n      type: junit\n      must_be_compliant: false\n';
    expect(judge(lenient, { artifact, trails: [failing] }).compliant).to.equal(true);
    const wrongType = trail({ attestations: [{ name: 'unit-tests', type: 'generic', compliant: true }] });
    expect(resolutions(rule, { artifact, trails: [wrongType] })[2]).to.deep.equal(['missing_attestation']);
    const anyType = 'artifacts:\n  attestations:\n    - name: unit-tests\n      type: "*"\n';
    expect(judge(anyType, { artifact, trails: [wrongType] }).compliant).to.equal(true);
    const anyName = 'artifacts:\n  attestations:\n    - type: custom:coverage\n';
    expect(judge(anyName, { artifact, trails: [trail({ attestations: [{ name: 'cov', type: 'custom:coverage', compliant: true }] })] }).compliant).to.equal(
      true,
    );
    expect(resolutions(rule, { artifact, trails: [] })[2]).to.deep.equal(['no_provenance']);
  });

  it('an if that is false makes the rule not applicable; true makes it required', () => {
    const rule = 'artifacts:\n  attestations:\n    - name: pr\n      type: pull_request\n      if: ${{ flow.tags.risk-level == "high" }}\n';
    const low = trail({ flow: { name: 'runner', tags: { 'risk-level': 'low' } } });
    const result = judge(rule, { artifact, trails: [low] });
    expect(result.compliant).to.equal(true);
    expect(result.rule_evaluations[2]).to.deep.include({ ignored: true });
    expect(result.rule_evaluations[2]!.resolutions[0]!.type).to.equal('rule_not_applicable');
    expect(judge(rule, { artifact, trails: [trail()] }).compliant).to.equal(false);
  });

  it('a decision for a control: the for_control is in the resolution', () => {
    const policy = parsePolicy(fixture('test-policy-for-control.yml'));
    const decided = (compliant: boolean, control = 'assert-artifact-ctl') =>
      trail({ attestations: [{ name: 'decision', type: 'decision', compliant, for_control: control }] });
    expect(evaluatePolicy(policy, { artifact, trails: [decided(true)] }).compliant).to.equal(true);
    const denied = evaluatePolicy(policy, { artifact, trails: [decided(false)] }).rule_evaluations[2]!;
    expect(denied.resolutions).to.deep.equal([
      { type: 'non_compliant_attestation', context: { flow_name: 'runner', trail_name: 't1', for_control: 'assert-artifact-ctl' } },
    ]);
    expect(evaluatePolicy(policy, { artifact, trails: [decided(true, 'other')] }).rule_evaluations[2]!.resolutions[0]!.type).to.equal('missing_attestation');
  });

  it('with several trails, one that satisfies a rule is enough; the failures name each trail', () => {
    const rule = 'artifacts:\n  trail-compliance:\n    required: true\n';
    const bad = trail({ trail: { name: 'bad', compliant: false } });
    expect(judge(rule, { artifact, trails: [bad, trail()] }).compliant).to.equal(true);
    const both = judge(rule, { artifact, trails: [bad, { ...bad, trail: { name: 'worse', compliant: false } }] });
    expect(both.rule_evaluations[1]!.resolutions.map((r) => r.context.trail_name)).to.deep.equal(['bad', 'worse']);
  });

  it('the reference example: compliant only with every required attestation', () => {
    const policy = parsePolicy(referenceExample);
    const attestations = [
      { name: 'security-scan', type: 'snyk', compliant: true },
      { name: 'pull-request', type: 'pull_request', compliant: true },
      { name: 'coverage', type: 'custom:coverage-metrics', compliant: true },
    ];
    expect(evaluatePolicy(policy, { artifact, trails: [trail({ attestations })] }).compliant).to.equal(true);
    const without = evaluatePolicy(policy, { artifact, trails: [trail({ attestations: attestations.slice(1) })] });
    expect(without.status).to.equal('NON-COMPLIANT');
    expect(without.rule_evaluations.filter((r) => !r.ignored && !r.satisfied).map((r) => r.rule.definition)).to.deep.equal([
      { name: 'security-scan', type: 'snyk', if: null, must_be_compliant: true, for_control: null },
    ]);
  });
});
