import { expect } from 'chai';
import { evaluateExpression, expressionBounds, parseExpression, PolicyExpressionError, type ExpressionContext } from './policy-expression.ts';

const context: ExpressionContext = {
  flow: { name: 'runner', tags: { 'risk-level': 'high', team: 'a', priority: '2', 'key.with.dots': 'yes' } },
  artifact: { name: 'datadog:agent', fingerprint: 'a'.repeat(64) },
};
const noFlow: ExpressionContext = { ...context, flow: null };
const holds = (text: string, on: ExpressionContext = context) => evaluateExpression(parseExpression(text), on);
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(PolicyExpressionError);
    return (error as Error).message;
  }
  throw new Error('expected a PolicyExpressionError');
};

describe('policy expressions ${{ … }}', () => {
  it("evaluates the reference's examples", () => {
    expect(holds('${{ flow.tags.risk-level == "high" and matches(artifact.name, "^datadog:.*") }}')).to.equal(true);
    expect(holds(`\${{ flow.name == 'prod' and (flow.tags.team == "a" or artifact.name == 'svc') }}`)).to.equal(false);
    expect(holds('${{ flow.name in ["runner", "saver"] }}')).to.equal(true);
    expect(holds('${{ exists(flow) }}')).to.equal(true);
    expect(holds('${{ exists(flow) }}', noFlow)).to.equal(false);
    expect(holds('${{ not flow.tags.risk-level == "high" }}')).to.equal(false);
    expect(holds('${{ flow.tags.risk-level != "high" }}')).to.equal(false);
  });

  it('compares tags as numbers where the other side is a number', () => {
    const cases: Array<[string, boolean]> = [
      ['flow.tags.priority < 3', true],
      ['flow.tags.priority > 1', true],
      ['flow.tags.priority >= 3', false],
      ['flow.tags.priority <= 2', true],
      ['flow.tags.priority == 2', true],
    ];
    for (const [text, result] of cases) expect(holds(text), text).to.equal(result);
  });

  it('reads dotted tag keys, absent tags as null, and the artifact', () => {
    expect(holds('${{ flow.tags.key.with.dots == "yes" }}')).to.equal(true);
    expect(holds('${{ exists(flow.tags.missing) }}')).to.equal(false);
    expect(holds('${{ flow.tags.missing == "x" }}')).to.equal(false);
    expect(holds('${{ flow.tags.missing < 3 }}')).to.equal(false);
    expect(holds(`\${{ artifact.fingerprint == "${'a'.repeat(64)}" }}`)).to.equal(true);
    expect(holds('${{ flow.name == "runner" }}', noFlow)).to.equal(false);
  });

  it('gives and precedence over or, and parentheses over both', () => {
    expect(holds('${{ flow.name == "x" and flow.name == "y" or true }}')).to.equal(true);
    expect(holds('${{ flow.name == "x" and (flow.name == "y" or true) }}')).to.equal(false);
    expect(holds('flow.name == "runner"')).to.equal(true);
  });

  it('refuses at parse time what cannot be a condition, naming the expression', () => {
    expect(refusal(() => parseExpression('${{ flow.name }}'))).to.match(/expression 'flow.name': .*condition/);
    expect(refusal(() => parseExpression('${{ "text" }}'))).to.match(/condition/);
    expect(refusal(() => parseExpression('${{ build.id == 1 }}'))).to.match(/unknown context 'build'/);
    expect(refusal(() => parseExpression('${{ flow.owner == 1 }}'))).to.match(/unknown field 'flow.owner'/);
    expect(refusal(() => parseExpression('${{ eval("x") }}'))).to.match(/unknown function 'eval'/);
    expect(refusal(() => parseExpression('${{ flow.name == "x }}'))).to.match(/unterminated string/);
    expect(refusal(() => parseExpression('${{ flow.name == }}'))).to.match(/ends where a value is expected/);
    expect(refusal(() => parseExpression('${{ matches(artifact.name, "(?<=a)") }}'))).to.match(/invalid pattern/);
    expect(refusal(() => parseExpression('${{ matches(artifact.name, flow.name) }}'))).to.match(/pattern in quotes/);
    expect(refusal(() => parseExpression('${{ }}'))).to.match(/empty/);
  });

  it('refuses at evaluation a non-boolean operand, naming the expression', () => {
    expect(refusal(() => holds('${{ flow.name and true }}'))).to.match(/expression 'flow.name and true': and's left side is the text "runner"/);
    expect(refusal(() => holds('${{ not flow.tags.team }}'))).to.match(/not's operand/);
    expect(refusal(() => holds('${{ flow.name in 3 }}'))).to.match(/needs a list/);
    expect(refusal(() => holds('${{ flow.name < 3 }}'))).to.match(/compares numbers or texts/);
  });

  it('bounds size and depth before evaluating (a stack cannot overflow, nothing runs long)', () => {
    const deep = `\${{ ${'('.repeat(5_000)}true${')'.repeat(5_000)} }}`;
    expect(refusal(() => parseExpression(deep))).to.match(/at most .* characters/);
    const nested = `${'('.repeat(expressionBounds.depth + 1)}true${')'.repeat(expressionBounds.depth + 1)}`;
    expect(refusal(() => parseExpression(nested))).to.match(/nest at most/);
    const nots = `${'not '.repeat(expressionBounds.depth + 1)}true`;
    expect(refusal(() => parseExpression(nots))).to.match(/nest at most/);
    const long = Array.from({ length: 210 }, () => 'true').join(' or ');
    expect(refusal(() => parseExpression(long))).to.match(/at most 400 tokens/);
    expect(refusal(() => parseExpression(`matches(artifact.name, "${'a'.repeat(expressionBounds.patternChars + 1)}")`))).to.match(/pattern may be at most/);
  });

  it('matches in linear time: a backtracking pattern on a long name answers at once', () => {
    const evil = parseExpression('${{ matches(artifact.name, "^(a+)+$") }}');
    const name = `${'a'.repeat(30_000)}b`;
    expect(evaluateExpression(evil, { ...context, artifact: { name, fingerprint: '' } })).to.equal(false);
  });
});
