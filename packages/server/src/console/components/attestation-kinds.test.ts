import { expect } from 'chai';
import { render } from 'preact-render-to-string';
import { h } from 'preact';
import { AttestationKindView, maxJsonShown, shownJson, whyNotCompliant } from './attestation-kinds.tsx';

/** Every kind says why it is not compliant: the rule that was false, the schema error, the missing pull request, the failed tests. */
describe('attestation kinds: each as a person reads it, and why one is not compliant', () => {
  const now = 1_764_000_000;
  const custom = (evaluation: unknown, attestation_data: unknown = { critical: 1 }) => ({
    type: 'custom:scan',
    compliant: false,
    data: { type_name: 'scan', attestation_data, evaluation },
  });
  const judged = (over: Record<string, unknown>) => ({ type_version: 3, type_sha256: 'a'.repeat(64), schema_errors: [], rules: [], ...over });

  it('custom: the schema error first, else the first rule that is false or gave no verdict, with the version that judged it', () => {
    const schema = custom(
      judged({ schema_errors: ['/critical must be integer'], rules: [{ rule: '.critical == 0', passed: false, output: null, error: null }] }),
    );
    expect(whyNotCompliant({ a: schema, now })).to.equal("the data does not match the type's schema: /critical must be integer");
    const rule = custom(
      judged({
        rules: [
          { rule: '.a', passed: true, output: 'true', error: null },
          { rule: '.critical == 0', passed: false, output: 'false', error: null },
        ],
      }),
    );
    expect(whyNotCompliant({ a: rule, now })).to.equal('rule .critical == 0 is false (false)');
    const timeout = custom(judged({ rules: [{ rule: 'def f: f; f', passed: false, output: null, error: 'ran out of time (2 s)' }] }));
    expect(whyNotCompliant({ a: timeout, now })).to.equal('rule def f: f; f gave no verdict: ran out of time (2 s)');
    const html = render(h(AttestationKindView, { a: rule, now }));
    expect(html).to.contain('judged by version 3').and.contain('✓ true').and.contain('✗ false');
    expect(whyNotCompliant({ a: custom(undefined), now })).to.equal('it was not judged by its type');
  });

  it('pull requests: none found is the reason; found ones show link, author, approvers of both shapes and the merge commit', () => {
    expect(whyNotCompliant({ a: { type: 'pull_request', compliant: false, data: { git_provider: 'gitlab', pull_requests: [] } }, now })).to.equal(
      'no gitlab pull request was found for the commit',
    );
    const pr = {
      merge_commit: 'c'.repeat(40),
      url: 'javascript:alert(1)',
      state: 'OPEN',
      approvers: ['bob', { username: 'carol', state: 'APPROVED', timestamp: now }],
      author: 'alice',
      commits: [],
    };
    const html = render(h(AttestationKindView, { a: { type: 'pull_request', compliant: true, data: { git_provider: 'github', pull_requests: [pr] } }, now }));
    expect(html).to.contain('bob, carol (approved)').and.contain('alice').and.contain('c'.repeat(12));
    // A URL that is not http(s) stays text.
    expect(html).not.to.contain('href="javascript:');
  });

  it('JUnit and generic: the failed tests, or the sender’s word; compliant ones have no reason', () => {
    const junit = {
      type: 'junit',
      compliant: false,
      data: {
        junit_results: [
          { failures: 2, errors: 1 },
          { failures: 1, errors: 0 },
        ],
      },
    };
    expect(whyNotCompliant({ a: junit, now })).to.equal('3 tests failed and 1 had errors');
    expect(whyNotCompliant({ a: { type: 'generic', compliant: false, data: {} }, now })).to.contain('is_compliant: false');
    expect(whyNotCompliant({ a: { type: 'generic', compliant: true, data: {} }, now })).to.equal(null);
    expect(whyNotCompliant({ a: { type: 'sbom', compliant: false, data: {} }, now })).to.equal('it was stored as not compliant');
    expect(whyNotCompliant({ a: { type: 'some-plugin-type', compliant: false, data: {} }, now })).to.equal('it was stored as not compliant');
  });

  it('cuts a large document at maxJsonShown characters and says how much is left out', () => {
    const text = shownJson({ blob: 'x'.repeat(maxJsonShown * 2) });
    expect(text.length).to.be.lessThan(maxJsonShown + 200);
    expect(text).to.match(/… \d+ more characters/);
  });

  const view = (a: { type: string; compliant: boolean; data: unknown }) => render(h(AttestationKindView, { a, now }));

  it('Snyk: the findings by severity summed over runs, each finding listed; the reason counts them', () => {
    const finding = (id: string) => ({ id, message: `Prototype pollution in ${id}`, locations: [{ uri: 'package.json', lines: '3' }] });
    const a = {
      type: 'snyk',
      compliant: false,
      data: {
        snyk_results: {
          schema_version: 1,
          tool: { name: 'Snyk Open Source', version: '1.1290.0' },
          results: [
            { high_count: 1, medium_count: 2, low_count: 0, high: [finding('SNYK-JS-A-1')], medium: [finding('SNYK-JS-B-2'), finding('SNYK-JS-C-3')] },
            { high_count: 0, medium_count: 0, low_count: 3 },
          ],
        },
      },
    };
    expect(whyNotCompliant({ a, now })).to.equal('Snyk found 1 high, 2 medium and 3 low severity vulnerabilities');
    const html = view(a);
    expect(html).to.contain('Snyk Open Source 1.1290.0').and.contain('2 runs');
    expect(html)
      .to.match(/data-severity="high">1</)
      .and.match(/data-severity="medium">2</)
      .and.match(/data-severity="low">3</);
    expect(html).to.contain('SNYK-JS-C-3').and.contain('Prototype pollution in SNYK-JS-A-1').and.contain('package.json');
  });

  it('Sonar: the project, the gate and its conditions, failed ones marked; the reason names the failed conditions or the missing gate', () => {
    const results = (qualityGate?: unknown) => ({
      type: 'sonar',
      compliant: false,
      data: {
        sonar_results: {
          serverUrl: 'https://sonar.example.com',
          taskId: 'AY1',
          status: 'SUCCESS',
          analysedAt: '2026-11-30T10:00:00+0000',
          revision: 'f'.repeat(40),
          project: { key: 'acme_shop', name: 'Shop', url: 'https://sonar.example.com/dashboard?id=acme_shop' },
          ...(qualityGate ? { qualityGate } : {}),
        },
      },
    });
    const gate = {
      status: 'ERROR',
      conditions: [
        { metric: 'new_coverage', errorThreshold: '80', operator: 'LESS_THAN', value: '62.5', status: 'ERROR' },
        { metric: 'new_bugs', errorThreshold: '0', operator: 'GREATER_THAN', value: '0', status: 'OK' },
      ],
    };
    expect(whyNotCompliant({ a: results(gate), now })).to.equal('the quality gate is ERROR: new_coverage 62.5 (LESS_THAN 80)');
    expect(whyNotCompliant({ a: results(), now })).to.equal('SonarQube reported no quality gate for the analysis');
    const html = view(results(gate));
    expect(html).to.contain('href="https://sonar.example.com/dashboard?id=acme_shop"').and.contain('>ERROR<');
    expect(html).to.match(/<tr class="failed"><td><bdi>new_coverage<\/bdi>/);
    expect(html).to.match(/<tr><td><bdi>new_bugs<\/bdi>/);
  });

  it('Jira: each issue linked, found or missing, with its summary; none referenced or missing ones are the reason', () => {
    const jira = (jira_results: unknown[]) => ({ type: 'jira', compliant: false, data: { jira_results } });
    expect(whyNotCompliant({ a: jira([]), now })).to.equal('the commit and branch reference no Jira issue');
    const issues = [
      {
        issue_id: 'SHOP-1',
        issue_url: 'https://acme.atlassian.net/browse/SHOP-1',
        issue_exists: true,
        issue_fields: { summary: 'Checkout', status: { name: 'Done' } },
      },
      { issue_id: 'SHOP-404', issue_url: 'https://acme.atlassian.net/browse/SHOP-404', issue_exists: false },
    ];
    expect(whyNotCompliant({ a: jira(issues), now })).to.equal('Jira has no issue SHOP-404');
    const html = view(jira(issues));
    expect(html).to.contain('href="https://acme.atlassian.net/browse/SHOP-1"').and.contain('Checkout').and.contain('(Done)');
    expect(html)
      .to.match(/data-issue="SHOP-1">.*found/)
      .and.match(/data-issue="SHOP-404">.*missing/);
  });

  it('decisions and overrides: the control decided; what was overridden, its verdict before and after, and why', () => {
    const decision = { type: 'decision', compliant: false, data: { type_name: 'decision', control: 'RCTL-043', attestation_data: { is_compliant: false } } };
    expect(whyNotCompliant({ a: decision, now })).to.equal('the decision on control RCTL-043 is not compliant');
    expect(view(decision)).to.contain('Decision on control <code>RCTL-043</code>: not compliant');
    const override = (compliant: boolean) => ({
      type: 'override:junit',
      compliant,
      data: {
        reason: 'flaky test quarantined by QA',
        new_compliance_status: compliant,
        original_attestation_type: 'junit',
        overridden_attestation_id: '42',
        overridden_compliance: !compliant,
      },
    });
    const html = view(override(true));
    expect(html).to.contain('href="#attestation-42"').and.contain('which was not compliant: now compliant').and.contain('flaky test quarantined by QA');
    expect(whyNotCompliant({ a: override(true), now })).to.equal(null);
    expect(whyNotCompliant({ a: override(false), now })).to.equal('it was overridden as not compliant: flaky test quarantined by QA');
  });

  it('SBOM: format, subject, package count and tools sent, what the server read, and the differences as the reason; from a glance too', () => {
    const attestation_data = {
      format: 'cyclonedx-1.6',
      original_fingerprint: 'e'.repeat(64),
      document: { created_at: '2026-11-30T10:00:00Z', tools: ['syft 1.50.0'], subject: { name: 'ghcr.io/acme/shop', version: '1.4.0' }, package_count: 4 },
    };
    const sbom = (sbom_verification: unknown, data: Record<string, unknown> = { attestation_data }) => ({
      type: 'sbom',
      compliant: false,
      data: { ...data, sbom_verification },
    });
    const lying = {
      read: true,
      format: 'cyclonedx-1.6',
      package_count: 3,
      reason: null,
      differences: ['package_count: the document lists 3, the summary says 4'],
    };
    expect(whyNotCompliant({ a: sbom(lying), now })).to.equal(
      'the document does not bear out the summary sent: package_count: the document lists 3, the summary says 4',
    );
    const html = view(sbom(lying));
    expect(html).to.contain('cyclonedx-1.6').and.contain('ghcr.io/acme/shop 1.4.0').and.contain(': 4 packages').and.contain('syft 1.50.0');
    expect(html).to.contain('Read by the server: cyclonedx-1.6, 3 packages').and.contain('e'.repeat(64));
    const glance = { attestation_data_text: JSON.stringify(attestation_data), attestation_data_length: JSON.stringify(attestation_data).length };
    const unread = {
      read: false,
      format: null,
      package_count: null,
      reason: 'the file is gzip compressed',
      differences: ['the document was not read: the file is gzip compressed'],
    };
    expect(view(sbom(unread, glance)))
      .to.contain('ghcr.io/acme/shop 1.4.0')
      .and.contain('not read (the file is gzip compressed)');
  });

  it('hostile stored text stays text in every new kind; only http(s) URLs become links', () => {
    const evil = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    const kinds = [
      {
        type: 'snyk',
        compliant: false,
        data: {
          snyk_results: {
            tool: { name: evil, version: evil },
            results: [{ high_count: 1, medium_count: 0, low_count: 0, high: [{ id: evil, message: evil, locations: [{ uri: evil }] }] }],
          },
        },
      },
      {
        type: 'sonar',
        compliant: false,
        data: {
          sonar_results: {
            project: { key: evil, name: evil, url: 'javascript:alert(1)' },
            revision: evil,
            analysedAt: evil,
            qualityGate: { status: evil, conditions: [{ metric: evil, value: evil, operator: evil, errorThreshold: evil, status: evil }] },
          },
        },
      },
      {
        type: 'jira',
        compliant: false,
        data: {
          jira_results: [{ issue_id: evil, issue_url: 'javascript:alert(1)', issue_exists: false, issue_fields: { summary: evil, status: { name: evil } } }],
        },
      },
      { type: 'decision', compliant: false, data: { control: evil, attestation_data: { is_compliant: false } } },
      {
        type: 'override:generic',
        compliant: false,
        data: { reason: evil, original_attestation_type: evil, overridden_attestation_id: `1"><script>alert(1)</script>` },
      },
      {
        type: 'sbom',
        compliant: false,
        data: {
          attestation_data: {
            format: evil,
            original_fingerprint: evil,
            document: { tools: [evil], subject: { name: evil, version: evil }, created_at: evil, package_count: 1 },
          },
          sbom_verification: { read: false, reason: evil, differences: [evil] },
        },
      },
    ];
    for (const a of kinds) {
      const html = view(a);
      expect(html, a.type).not.to.contain('<script').and.not.to.contain('<img').and.not.to.contain('href="javascript:');
      expect(html, a.type).to.match(/&lt;script(>|&gt;)alert\(1\)&lt;\/script/);
    }
  });
});
