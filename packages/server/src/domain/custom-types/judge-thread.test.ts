import { expect } from 'chai';
import { Judge, JudgeBusyError, JudgePool, judgeBounds } from './judge-thread.ts';

describe('custom types: the judge thread', function () {
  this.timeout(60_000);

  it('judges the schema and each rule: a rule passes only when every output is true, and jq errors name the rule', async () => {
    const judge = new Judge();
    try {
      const judged = await judge.judge('{"type":"object","required":["n"]}', ['.n > 1', 'true, false', 'empty', 'error("no")', '.n > 1, .n > 0'], '{"n":2}');
      expect(judged.schemaErrors).to.deep.equal([]);
      expect(judged.rules.map((r) => r.passed)).to.deep.equal([true, false, false, false, true]);
      expect(judged.rules[3]!.error).to.contain('no');
      expect((await judge.judge('{"type":"object","required":["n"]}', [], '{}')).schemaErrors).to.deep.equal(["/ must have required property 'n'"]);
    } finally {
      await judge.close();
    }
  });

  it("judges rules in the JavaScript subset and the rest with jq alike, in the rules' order, whether all at once or one at a time", async () => {
    const judge = new Judge({ ...judgeBounds, ruleMs: 1_000 });
    const data = JSON.stringify({ n: 2, xs: [1, 2, 'a'] });
    const rules = ['.n == 2', '.xs | length', '[.xs[] | select(. == 2)] | length == 1', '.xs[2] | startswith(1)', 'all(.xs[]; . != null)', '.n + 0 == 2'];
    const expected = [
      { passed: true, output: 'true', error: null },
      { passed: false, output: '3', error: null },
      { passed: true, output: 'true', error: null },
      { passed: false, output: null, error: 'jq: error: startswith() requires string inputs' },
      { passed: true, output: 'true', error: null },
      { passed: true, output: 'true', error: null },
    ];
    try {
      expect((await judge.judge(null, rules, data)).rules).to.deep.equal(expected);
      // A rule past its bound sends them all one at a time: the subset's results are the same there, and those before the bound keep them.
      const bounded = await judge.judge(null, [...rules, 'def f: f; f', '.n == 2'], data);
      // (jq's message names its input when the rule ran alone.)
      expect(bounded.rules).to.deep.equal([
        ...expected.map((r) => (r.error ? { ...r, error: 'jq: error (at /dev/stdin:0): startswith() requires string inputs' } : r)),
        { passed: false, output: null, error: 'the rule did not finish within 1 s' },
        { passed: false, output: null, error: 'not run: an earlier rule reached a bound' },
      ]);
      // A document jq reads otherwise (a number past 15 digits, compared in decimal by jq): jq judges.
      const raw = '{"big": 100000000000000000001}';
      expect(JSON.parse(raw).big).to.equal(1e20);
      expect((await judge.judge(null, ['.big == 100000000000000000000'], raw)).rules.map((r) => r.passed)).to.deep.equal([false]);
    } finally {
      await judge.close();
    }
  });

  it('refuses a job past its queue as busy, and answers the jobs still waiting when it closes', async () => {
    const judge = new Judge({ ruleMs: 2_000, startMs: 60_000, heapMiB: 64, queue: 1 });
    const waiting = judge.judge(null, ['.'], 'true');
    const refused = await judge.judge(null, ['.'], 'true').catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(JudgeBusyError);
    await judge.close();
    expect((await waiting).schemaErrors).to.deep.equal(['the data could not be judged: the server is stopping']);
  });

  it('says which rules do not compile without running any of them', async () => {
    const judge = new Judge();
    try {
      expect(await judge.check('{"type":"object"}', ['.a', 'def f: f; f', '.a |'])).to.deep.equal([
        "rule 3 does not compile: jq: error: syntax error, unexpected ')' (Unix shell quoting issues?)",
      ]);
    } finally {
      await judge.close();
    }
  });

  it("judges 30 documents of 100 KB in a row alike: the engine does not wear out (jq-wasm kept each run's arguments and broke after about 8)", async () => {
    const judge = new Judge();
    const data = JSON.stringify({ name: 'scan', findings: Array.from({ length: 1_000 }, (_, i) => ({ id: i, severity: 'low', text: 'x'.repeat(64) })) });
    expect(data.length).to.be.greaterThan(90_000);
    try {
      for (let run = 1; run <= 30; run++) {
        const judged = await judge.judge(
          '{"type":"object","required":["findings"]}',
          ['.findings | length == 1000', '[.findings[] | select(.severity == "high")] | length == 0', '.name == "scan"'],
          data,
        );
        expect({ run, schemaErrors: judged.schemaErrors, passed: judged.rules.map((r) => r.passed) }).to.deep.equal({
          run,
          schemaErrors: [],
          passed: [true, true, true],
        });
      }
    } finally {
      await judge.close();
    }
  });

  it('a pool judges on its threads side by side: a quick job is answered while a rule that never ends holds another thread', async () => {
    const pool = new JudgePool(2, { ruleMs: 60_000, startMs: 60_000, heapMiB: 64, queue: 4 });
    try {
      const answered: string[] = [];
      const endless = pool.judge(null, ['def f: f; f'], 'null').then((j) => (answered.push('endless'), j));
      const quick = await pool.judge(null, ['. == 1'], '1').then((j) => (answered.push('quick'), j));
      expect(quick.rules.map((r) => r.passed)).to.deep.equal([true]);
      expect(answered, 'the quick job did not wait for the endless one').to.deep.equal(['quick']);
      await pool.close();
      expect((await endless).schemaErrors, 'answered when the pool closes').to.deep.equal(['the data could not be judged: the server is stopping']);
    } finally {
      await pool.close();
    }
  });
});
