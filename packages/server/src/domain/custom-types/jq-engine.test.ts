import { expect } from 'chai';
import { enginesCreated, keptMemoryBytes, runJq } from './jq-engine.ts';

describe('custom types: the jq engine', function () {
  this.timeout(120_000);

  it('answers thousands of runs on one engine, small and 100 KB: its stack is put back after each', async () => {
    await runJq('.', []);
    const before = enginesCreated();
    // Each run used to leave about 3 KB on a 1 MiB stack: some 300 small runs overflowed it.
    for (let i = 0; i < 1500; i++) expect(await runJq(`$d.n + ${i}`, ['-c', '--argjson', 'd', '{"n":1}'])).to.equal(String(i + 1));
    const document = JSON.stringify({ xs: Array.from({ length: 2000 }, (_, i) => ({ id: `x-${i}`, note: 'y'.repeat(30) })) });
    expect(document.length).to.be.greaterThan(90_000);
    for (let i = 0; i < 30; i++) expect(await runJq('$d.xs | length', ['-c', '--argjson', 'd', document])).to.equal('2000');
    expect(enginesCreated()).to.equal(before);
  });

  it("keeps the engine after jq's own errors, and gives a new one after a run that left its memory large", async () => {
    await runJq('.', []);
    const before = enginesCreated();
    const failed = await runJq('error("no")', []).catch((e: unknown) => e);
    expect(String(failed)).to.match(/^Error: jq: error/);
    expect(await runJq('1 + 1', [])).to.equal('2');
    expect(enginesCreated()).to.equal(before);
    // Distinct strings of about 500 bytes (a constant string would be one value held many times).
    const strings = Math.ceil((keptMemoryBytes * 1.2) / 500);
    expect(await runJq(`[range(${strings}) | tostring * 100] | length`, [])).to.equal(String(strings));
    expect(await runJq('1 + 2', [])).to.equal('3');
    expect(enginesCreated()).to.equal(before + 1);
  });
});
