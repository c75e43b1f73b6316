import { expect } from 'chai';
import { summaryMarkdown, type AttestConfig, type AttestResult } from '@trailproof/action';
import type { JunitCase, JunitSuiteResult } from '@trailproof/junit';

const config: AttestConfig = {
  serverUrl: 'https://tp.example.com',
  apiToken: 'tp_x',
  org: 'acme',
  flow: 'backend',
  trail: 'abc123',
  junitPaths: ['**/*.xml'],
  attestationName: 'unit',
  failOnFailure: true,
  requireTests: true,
  uploadResults: true,
  annotations: 10,
  reruns: 'separate',
  jobSummary: 'all',
  onMissingToken: 'fail',
};
const trailUrl = 'https://tp.example.com/ui/acme/flows/backend/trails/abc123';
const suite = (name: string, total: number, failures = 0, errors = 0, skipped = 0, duration = 1.5): JunitSuiteResult => ({
  name,
  total,
  failures,
  errors,
  skipped,
  duration,
  timestamp: null,
  flaky: 0,
});
const failure = (i: number): JunitCase => ({
  className: 'vat.ReverseChargeTest',
  name: `case ${i}`,
  outcome: i % 2 ? 'error' : 'failure',
  time: 0.1,
  flaky: false,
  suiteName: 'vat',
  message: `expected ${i} | got <${i + 1}>`,
});
const result = (over: Partial<AttestResult> = {}): AttestResult => ({
  trailUrl,
  files: ['/w/a.xml'],
  begun: true,
  attested: true,
  compliant: false,
  attachment: { name: 'a.xml', size: 1234 },
  totals: { suites: 2, total: 160, passed: 30, failed: 60, errors: 60, skipped: 10, flaky: 2, duration: 12.25 },
  suites: [suite('vat.ReverseChargeTest', 150, 60, 60, 5), suite('invoice|RoundingTest', 10, 0, 0, 5, 0.42)],
  failures: Array.from({ length: 100 }, (_, i) => failure(i)),
  moreFailures: 20,
  ...over,
});

describe('job summary', () => {
  it('totals, the suites table, the failed tests with their messages, how many were left out, and the trail link', () => {
    const md = summaryMarkdown({ config, result: result() });
    const lines = md.split('\n');
    expect(lines[0]).to.equal('## Trailproof: unit attested');
    expect(md).to.contain('❌ 60 failed, 60 errored · 160 tests in 2 suites · 30 passed · 10 skipped · 2 flaky · 12.3 s');
    expect(md).to.contain(`Trail: [acme/backend/abc123](${trailUrl}) · attached a.xml (1234 bytes)`);
    expect(lines).to.include.members([
      '| Suite | Tests | Passed | Failed | Errors | Skipped | Time |',
      '| vat.ReverseChargeTest | 150 | 25 | 60 | 60 | 5 | 1.50 s |',
      '| invoice\\|RoundingTest | 10 | 5 | 0 | 0 | 5 | 0.42 s |',
      '### Failed tests',
      '- **vat › vat.ReverseChargeTest › case 0** (failure): expected 0 \\| got &lt;1&gt;',
      '- **vat › vat.ReverseChargeTest › case 99** (error): expected 99 \\| got &lt;100&gt;',
      '… and 20 more failed or errored tests, not listed (the first 100 are).',
    ]);
    expect(lines.filter((l) => l.startsWith('- **'))).to.have.length(100);
    expect(md).to.not.contain('Failed:');
  });

  it('all passed: no failures section, no truncation note', () => {
    const md = summaryMarkdown({
      config,
      result: result({
        compliant: true,
        failures: [],
        moreFailures: 0,
        totals: { suites: 1, total: 3, passed: 3, failed: 0, errors: 0, skipped: 0, flaky: 0, duration: 0.5 },
      }),
    });
    expect(md).to.contain('✅ all tests passed · 3 tests in 1 suites').and.not.contain('### Failed tests').and.not.contain('more failed');
  });

  it('a failure after reading (an HTTP error): the error first, then the totals, suites and failures known, and that the trail was not begun', () => {
    const error = 'PUT /trails/acme/backend answered 401: Missing or invalid API token';
    const md = summaryMarkdown({ config, result: result({ begun: false, attested: false, attachment: null }), error });
    const lines = md.split('\n');
    expect(lines.slice(0, 3)).to.deep.equal(['## Trailproof: unit not attested', '', `**Failed:** ${error}`]);
    expect(md)
      .to.contain('❌ 60 failed, 60 errored · 160 tests in 2 suites')
      .and.contain('| vat.ReverseChargeTest | 150 |')
      .and.contain('- **vat › vat.ReverseChargeTest › case 0**');
    expect(md).to.contain(`Trail [acme/backend/abc123](${trailUrl}) was not begun.`);
  });

  it('a failure before the totals (corrupt XML) and before the inputs (a bad input): the error and what is known', () => {
    const corrupt = summaryMarkdown({
      config,
      error: '/w/b.xml:3:1: corrupt XML: unclosed tag: testcase',
      result: result({ totals: null, suites: [], failures: [], moreFailures: 0, files: ['/w/a.xml'], begun: false, attested: false, attachment: null }),
    });
    expect(corrupt)
      .to.contain('**Failed:** /w/b.xml:3:1: corrupt XML: unclosed tag: testcase')
      .and.contain('Read 1 JUnit file(s) before the failure; no totals.');
    expect(corrupt).to.not.contain('| Suite |');
    const input = summaryMarkdown({ error: "Input 'org' is required" });
    expect(input).to.equal("## Trailproof: JUnit results not attested\n\n**Failed:** Input 'org' is required\n");
  });

  it('job-summary failures: only the suites with failed or errored tests', () => {
    const md = summaryMarkdown({ config: { ...config, jobSummary: 'failures' }, result: result() });
    expect(md).to.contain('### Suites with failures').and.contain('| vat.ReverseChargeTest |').and.not.contain('RoundingTest');
  });

  it('says which failed tests were not annotated, and why', () => {
    const md = summaryMarkdown({
      config,
      result: result(),
      annotated: { count: 9, limit: "GitHub shows at most 10 error annotations per step, and the step's own failure is one" },
    });
    expect(md).to.contain(
      "Annotated the first 9; not annotated (GitHub shows at most 10 error annotations per step, and the step's own failure is one): " +
        '**vat › vat.ReverseChargeTest › case 9**, **vat › vat.ReverseChargeTest › case 10**, **vat › vat.ReverseChargeTest › case 11**, ' +
        '**vat › vat.ReverseChargeTest › case 12**, **vat › vat.ReverseChargeTest › case 13** and 106 more.',
    );
    expect(summaryMarkdown({ config, result: result(), annotated: { count: 0, limit: 'annotations is 0' } })).to.contain('Not annotated: annotations is 0.');
  });

  it('without a token (on-missing-token warn): says nothing was attested and why, and shows no trail link', () => {
    const md = summaryMarkdown({
      config: { ...config, apiToken: '', onMissingToken: 'warn' },
      result: result({ begun: false, attested: false, attachment: null, unattested: 'api-token is empty' }),
    });
    expect(md).to.contain('**Nothing attested:** api-token is empty.').and.contain('❌ 60 failed').and.not.contain('Trail:').and.not.contain('was not begun');
  });

  it('stays under 1 MiB whatever the names: long names end in an ellipsis, and the summary says so', () => {
    const long = (i: number) => `${i}-${'n'.repeat(2048)}`;
    const failures = Array.from(
      { length: 100 },
      (_, i): JunitCase => ({ ...failure(i), suiteName: long(i), className: long(i), name: long(i), message: long(i) }),
    );
    const md = summaryMarkdown({
      config,
      result: result({ failures, moreFailures: 99_900, suites: Array.from({ length: 5000 }, (_, i) => suite(long(i), 20, 20)) }),
      error: long(0).repeat(1000),
    });
    expect(Buffer.byteLength(md)).to.be.below(1024 * 1024);
    expect(md)
      .to.contain(`| ${'0-'}${'n'.repeat(197)}… |`)
      .and.contain('… and 4950 more suites, not listed')
      .and.contain('… and 99900 more failed or errored tests');
    expect(md).to.match(/_\d+ name\(s\) or message\(s\) longer than shown were shortened \(…\)\._/);
  });
});
