import { expect } from 'chai';
import { failedCasesOnThread, readingBounds } from './junit-cases-thread.ts';

const report = (cases: number) =>
  Buffer.from(
    `<testsuites><testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="C" name="case_${i}"><failure message="expected ${i}">at x.ts:${i}</failure></testcase>`).join('\n')}</testsuite></testsuites>`,
  );

/** About 2 MiB of suites that declare a test each (and hold no case). */
const suites = (count: number) =>
  Buffer.from(`<testsuites>${Array.from({ length: count }, (_, i) => `<testsuite name="suite_${i}" tests="1"/>`).join('')}</testsuites>`);

/** Reading a report on a thread of its own, within bounds of time and memory. */
describe('failedCasesOnThread', function () {
  this.timeout(120_000);

  it('answers what the report says, worth keeping', async () => {
    const { failed, keep } = await failedCasesOnThread(report(60));
    expect(keep).to.equal(true);
    if (!('cases' in failed)) throw new Error(`unreadable: ${failed.unreadable}`);
    expect(failed.cases).to.have.length(50);
    expect(failed.cases[0]).to.deep.equal({ suite: 's', className: 'C', name: 'case_0', kind: 'failure', message: 'expected 0', details: 'at x.ts:0' });
    expect(failed.more).to.equal(10);
  });

  it('ends a reading that runs past its time bound and says so (kept: it would take as long again)', async () => {
    // About 2 MiB of cases: a second or more of reading, against a bound of 20 ms.
    const { failed, keep } = await failedCasesOnThread(report(16_000), { ...readingBounds, readingMs: 20 });
    expect(failed).to.deep.equal({ unreadable: 'The report could not be summarised within 0.02 s: download it.' });
    expect(keep).to.equal(true);
  });

  it('ends a reading that needs more memory than its bound and says so', async () => {
    // Every suite is an entry of what the reader returns: 2 MiB of them need more than 16 MiB, far over 12; the thread itself starts within 12.
    const { failed, keep } = await failedCasesOnThread(suites(50_000), { ...readingBounds, heapMiB: 12 });
    expect(failed).to.deep.equal({ unreadable: 'The report could not be summarised within 12 MiB of memory: download it.' });
    expect(keep).to.equal(true);
  });

  it('does not keep the answer of a thread that could not start in time', async () => {
    const { failed, keep } = await failedCasesOnThread(report(1), { ...readingBounds, startMs: 1 });
    expect(failed).to.deep.equal({ unreadable: 'The report could not be summarised here: its reader did not start in time. Try again later.' });
    expect(keep).to.equal(false);
  });
});
