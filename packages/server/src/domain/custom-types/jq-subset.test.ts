import { expect } from 'chai';
import { runJq } from './jq-engine.ts';
import { compileSubset, type Json, jqReadsAlike, runSubset, subsetStepBudget } from './jq-subset.ts';

/** A small seeded generator (mulberry32): the same cases each run. */
function random(seed: number) {
  let s = seed;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

const keys = ['a', 'b', 'id', 'severity', 'x y', 'é', '😀', 'Z', 'b1', '1', '10'];
const strings = ['', 'a', 'b', 'CVE-1', 'CVE-2026-1', 'cve-1', 'critical', 'low', 'é', 'e\u0301', '😀', '\uffff', '\ue000', 'ab', 'a\u007f', 'x'.repeat(40)];
const numbers = ['0', '-0', '1', '-1', '2', '1.5', '-2.25', '1e3', '1000', '1E2', '0.1', '1.0', '3.14159', '123456789012345', '-7e-3'];

/** A JSON text of at most `depth` levels. */
function documentText(r: ReturnType<typeof random>, depth: number): string {
  const roll = r.int(10);
  if (depth <= 0 || roll < 4) {
    const kind = r.int(5);
    if (kind === 0) return r.pick(numbers);
    if (kind === 1) return JSON.stringify(r.pick(strings));
    if (kind === 2) return r.pick(['true', 'false']);
    if (kind === 3) return 'null';
    return r.pick(numbers);
  }
  const n = r.int(5);
  if (roll < 7) return `[${Array.from({ length: n }, () => documentText(r, depth - 1)).join(',')}]`;
  const used = Array.from({ length: n }, () => r.pick(r.next() < 0.15 ? keys : keys.slice(0, 9)));
  return `{${used.map((k) => `${JSON.stringify(k)}:${documentText(r, depth - 1)}`).join(',')}}`;
}

/** Programs in (and sometimes past) the subset, always valid jq. */
function programText(r: ReturnType<typeof random>, depth: number): string {
  const path = (): string => {
    const steps = [];
    for (let i = r.int(3); i >= 0; i--) {
      steps.push(
        r.pick(['.a', '.b', '.id', '.severity', '."x y"', '.["é"]', '.[]', '.[0]', '.[1]', '.[-1]', '.[]?', '.a?', '.[0]?', '.["b"]?', '."😀"', '.[.b]?']),
      );
    }
    return steps.join('');
  };
  const literal = () =>
    r.pick([...numbers.filter((n) => !n.startsWith('-')), ...strings.map((s) => JSON.stringify(s)), 'true', 'false', 'null', '[]', '[1,2]', '["a"]']);
  const value = (d: number): string => {
    const k = r.int(d <= 0 ? 4 : 12);
    if (k === 0) return '.';
    if (k === 1 || k === 2) return path();
    if (k === 3) return literal();
    if (k === 4) return `(${path()} | length)`;
    if (k === 5) return `(${value(d - 1)} | type)`;
    if (k === 6) return `[${path()}]`;
    if (k === 7) return `(${value(d - 1)}, ${value(d - 1)})`;
    if (k === 8) return `(${path()} | keys)`;
    if (k === 9) return `map(${value(d - 1)})`;
    if (k === 10) return `[${path()} | select(${predicate(d - 1)})]`;
    return `(if ${predicate(d - 1)} then ${value(d - 1)} else ${value(d - 1)} end)`;
  };
  const predicate = (d: number): string => {
    const k = r.int(d <= 0 ? 3 : 13);
    if (k === 0) return `${value(d)} ${r.pick(['==', '!=', '<', '<=', '>', '>='])} ${value(d)}`;
    if (k === 1) return `(${path()} | startswith(${JSON.stringify(r.pick(strings))}))`;
    if (k === 2) return `has(${r.pick(['"a"', '"b"', '"1"', '0', '1', '-1'])})`;
    if (k === 3) return `(${predicate(d - 1)} and ${predicate(d - 1)})`;
    if (k === 4) return `(${predicate(d - 1)} or ${predicate(d - 1)})`;
    if (k === 5) return `(${predicate(d - 1)} | not)`;
    if (k === 6) return `all(${path()}; ${predicate(d - 1)})`;
    if (k === 7) return `any(${path()}; ${predicate(d - 1)})`;
    if (k === 8) return `(${path()} | all)`;
    if (k === 9) return `(${path()} | any(${predicate(d - 1)}))`;
    if (k === 10) return `([${path()} | select(${predicate(d - 1)})] | length == 0)`;
    if (k === 11) return `(${path()} | endswith(${JSON.stringify(r.pick(strings))}))`;
    return `(${value(d)} ${r.pick(['==', '<'])} ${value(d)})`;
  };
  return r.next() < 0.15 ? value(depth) : predicate(depth);
}

/** jq's outputs (as `-c` prints them) of each program on the document, or its error. */
async function jqOutputs(document: string, programs: string[]): Promise<Array<string[] | { error: string }>> {
  const program = `[${programs.map((p) => `(try ([(${p}\n)] | {o: map(tojson)}) catch {e: tostring})`).join(', ')}]`;
  const answers = JSON.parse(await runJq(`$d | ${program}`, ['-c', '--argjson', 'd', document])) as Array<{ o?: string[]; e?: string }>;
  return answers.map((a) => a.o ?? { error: String(a.e) });
}

/** Each program on each document: the subset gives jq's outputs, or declines. How many it answered. */
async function differ(programs: string[], documents: string[]): Promise<{ answered: number; cases: number }> {
  let answered = 0;
  for (const document of documents) {
    const expected = await jqOutputs(document, programs);
    for (const [i, program] of programs.entries()) {
      const compiled = compileSubset(program);
      const outputs = compiled && jqReadsAlike(document) ? runSubset(compiled, JSON.parse(document) as Json) : undefined;
      if (!outputs) continue;
      answered++;
      expect({ program, document, outputs: outputs.map(String) }).to.deep.equal({ program, document, outputs: expected[i] });
    }
  }
  return { answered, cases: programs.length * documents.length };
}

describe('custom types: the jq subset judged in JavaScript', function () {
  this.timeout(120_000);

  it("gives jq's outputs on generated programs and documents, or leaves them to jq", async () => {
    const r = random(50);
    const documents = Array.from({ length: 40 }, () => documentText(r, 4));
    const programs = Array.from({ length: 400 }, () => programText(r, 3));
    const { answered, cases } = await differ(programs, documents);
    // Most cases end in a jq error (`.a` of a number) or a non-boolean output, both left to jq; enough are answered to mean something.
    expect(answered, `${answered} of ${cases} answered`).to.be.greaterThan(cases / 8);
  });

  it("gives jq's outputs on programs written to find the edges: order of values, outputs' order, code points, errors under `?`", async () => {
    const programs = [
      '.critical == 0',
      '[.findings[] | select(.severity == "critical")] | length == 0',
      'all(.findings[]; .id | startswith("CVE-"))',
      '[(1,2) == (1,2)] == [true,false,false,true]',
      '(true, false) and (true, false)',
      '(false, true) or (true, false)',
      'true and (true, false)',
      '[.[]?] == []',
      '[.findings[]? | .id?] | length > 1',
      '[.findings[] | (.x.y?, true)] | length > 0',
      '"\uffff" < "😀"',
      '"é" < "z"',
      '"😀x" | length == 2',
      '("e\u0301" | length) == 2',
      '{"a":1,"b":2} < {"a":2}',
      '[1,2] < [1,2,0]',
      'null < false and false < true and true < 0 and 0 < "" and "" < [] and [] < {}',
      '1 == 1.0',
      '1000 == 1e3',
      '.critical == -0',
      'keys == ["critical","findings","o","scanner"]',
      '.o | keys == ["1","10","2","a"]',
      '[.o[]] | length == 4',
      '.o | has("1")',
      '.findings | has(0), has(-1), has(1000)',
      'if .critical == 0 then true elif .critical then false else null end',
      'if .missing then false end',
      '.findings[0] | type == "object"',
      '[.findings[] | .severity] | map(. == "low") | all',
      '.findings | any(.severity == "high")',
      '.findings | all(has("id"))',
      '.scanner.name | endswith("vy")',
      '."scanner"."name" == "trivy"',
      '.["scanner"].["version"] == "0.58.0"',
      '.findings.[-1].id == "CVE-2026-10009"',
      '[.findings[] | select(.id | startswith("CVE"))] | length == 10',
      'all(empty; false)',
      'any(.findings[]; .severity == "low", error("never"))',
      'all(.findings[]; .id | length >= 0)',
      '.findings | length',
      '.o.a',
      '.findings[0].id',
      '.findings[] | .id | startswith(1)',
      '.scanner | .[0]',
      '[.findings[] | .id?] == [.findings[].id]',
      '.critical | not',
      '[.[] | length] | length == 4',
      '(.findings | length) == 10 and (.scanner | length) == 2',
      '[.findings[] | (.id | startswith("CVE")) and (.severity != "critical")] | all',
      'try error("x") catch true',
      '.critical + 0 == 0',
      '[limit(1; .findings[])] | length == 1',
    ];
    const findings = Array.from({ length: 10 }, (_, i) => ({ id: `CVE-2026-${10000 + i}`, severity: ['low', 'medium', 'high'][i % 3], note: 'é😀' }));
    const documents = [
      JSON.stringify({ scanner: { name: 'trivy', version: '0.58.0' }, critical: 0, findings, o: { b1: 1, '10': 2, '1': 3, a: 4 } }),
      JSON.stringify({ scanner: { name: 'trivy', version: '0.58.0' }, critical: 1, findings: [...findings, { id: 7, severity: 'critical' }], o: {} }),
      JSON.stringify({ scanner: null, critical: null, findings: [], o: { a: [] } }),
    ];
    const { answered } = await differ(programs, documents);
    expect(answered).to.be.greaterThan(programs.length);
  });

  it('leaves to jq what jq reads otherwise than JSON.parse, and what it prints its own way', async () => {
    for (const text of [
      '['.repeat(257) + ']'.repeat(257),
      '{"a":'.repeat(257) + '1' + '}'.repeat(257),
      '"\\ud800"',
      '"\\uD83D\\uDE00"',
      '12345678901234567',
      '0.1000000000000000055',
      '1e400',
      '1e-400',
    ]) {
      expect(jqReadsAlike(text), text.slice(0, 20)).to.equal(false);
    }
    // Why: jq refuses JSON deeper than 256 and a lone surrogate, and compares two literals in decimal.
    for (const text of ['['.repeat(257) + ']'.repeat(257), '"\\ud800"'])
      expect(await runJq('$d', ['-c', '--argjson', 'd', text]).catch(() => 'refused')).to.equal('refused');
    expect(await runJq('$d == 100000000000000000000', ['-c', '--argjson', 'd', '100000000000000000001'])).to.equal('false');
    // Inside strings nothing counts: brackets, digits, escaped quotes and backslashes.
    const inStrings = JSON.stringify({ 'a"[': '['.repeat(300), b: '\\', c: ['12345678901234567890', '\\"', '1e999'], d: 1 });
    expect(jqReadsAlike(inStrings), inStrings).to.equal(true);
    expect(jqReadsAlike(`${inStrings.slice(0, -1)},"e":1e999}`)).to.equal(false);
    for (const text of ['['.repeat(256) + ']'.repeat(256), '"😀"', '123456789012345', '1e250', '-0', '0.000000000000000000000000000000000000000000000001']) {
      expect(jqReadsAlike(text), text.slice(0, 20)).to.equal(true);
    }
    const program = compileSubset('.')!;
    expect(runSubset(program, 1), 'a number: jq prints 1.0 and 1E+2 its own way').to.equal(undefined);
    expect(runSubset(program, 'x')).to.equal(undefined);
    expect(runSubset(program, true)).to.deep.equal([true]);
    for (const rule of ['.[1e20] == null', '.[1e10] == null', 'has(1e20)', '.[0.5] == 1', 'has(0.5)'])
      expect(runSubset(compileSubset(rule)!, [1]), rule).to.equal(undefined);
    expect(runSubset(compileSubset('.[2147483647] == null')!, [1])).to.deep.equal([true]);
    // Outside the subset: jq compiles and judges them.
    for (const rule of [
      '$x',
      '.a // 1',
      '.a + 1',
      '{a: 1}',
      '"\\(.a)"',
      '.. == 1',
      'def f: 1; f',
      '.a as $x | $x',
      'reduce .[] as $x (0; .)',
      '.[1:2]',
      'test("a")',
      '-1',
      '.a | # c\n true',
      'first(.[])',
      'try .a',
      '1 == 1 == 1',
      '.a::b',
    ])
      expect(compileSubset(rule), rule).to.equal(undefined);
  });

  it('bounds hostile programs and documents: steps, nesting and size leave them to jq', () => {
    const huge = Array.from({ length: 300_000 }, (_, i) => i % 7);
    expect(runSubset(compileSubset('all(.[]; . < 7)')!, huge), 'past the step budget').to.equal(undefined);
    expect(runSubset(compileSubset('all(.[]; . < 7)')!, huge.slice(0, 10_000))).to.deep.equal([true]);
    // Each level doubles the work: 2^30 values if nothing stopped it.
    expect(runSubset(compileSubset(`[${'(., .) | '.repeat(30)}.] | all`)!, true)).to.equal(undefined);
    expect(compileSubset(`${'['.repeat(65)}.${']'.repeat(65)} == 1`), 'nests past 64').to.equal(undefined);
    expect(compileSubset(`${'['.repeat(60)}.${']'.repeat(60)} == 1`)).to.not.equal(undefined);
    expect(compileSubset(Array.from({ length: 600 }, () => '.a == 1').join(' or ')), 'past 1,000 nodes').to.equal(undefined);
    expect(compileSubset(`.a == "${'x'.repeat(5000)}"`), 'past 4,096 characters').to.equal(undefined);
    // A deep document compared with itself: the comparison's steps are counted too.
    let deep: Json = 1;
    for (let i = 0; i < 250; i++) deep = [deep, deep];
    expect(runSubset(compileSubset('. == .')!, deep, subsetStepBudget)).to.equal(undefined);
  });
});
