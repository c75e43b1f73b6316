import { expect } from 'chai';
import { failedCasesOf } from './junit-cases.ts';

const failing = `<?xml version="1.0" encoding="UTF-16"?>
<testsuites><testsuite name="Kasse"><testcase classname="Wagen" name="zählt_rabatt"><failure message="erwartet 90 €">at Wagen.kt:4</failure></testcase>
<testcase classname="Wagen" name="steuer"><error type="TimeoutError">${'x'.repeat(3000)}</error></testcase></testsuite></testsuites>`;

/** The failed cases of one report as the trail page shows them, read by the reader the action attests with. */
describe('failedCasesOf', () => {
  it('reads a report in the encoding it declares (UTF-16 here), the message or else the type, details cut with a mark', async () => {
    const read = await failedCasesOf(Buffer.from(`\ufeff${failing}`, 'utf16le'));
    expect(read).to.deep.equal({
      cases: [
        { suite: 'Kasse', className: 'Wagen', name: 'zählt_rabatt', kind: 'failure', message: 'erwartet 90 €', details: 'at Wagen.kt:4' },
        { suite: 'Kasse', className: 'Wagen', name: 'steuer', kind: 'error', message: 'TimeoutError', details: `${'x'.repeat(2000)}…` },
      ],
      more: 0,
    });
  });

  it('says a document that is XML but not JUnit, or not XML, cannot be read here', async () => {
    for (const text of ['<coverage line-rate="0.9"/>', '<testsuite><testcase name="x">', 'PASS all tests'])
      expect(await failedCasesOf(Buffer.from(text))).to.deep.equal({
        unreadable: 'The attachment is not a JUnit XML report that can be read here: download it.',
      });
  });
});
