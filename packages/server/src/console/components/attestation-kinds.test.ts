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
  });

  it('cuts a large document at maxJsonShown characters and says how much is left out', () => {
    const text = shownJson({ blob: 'x'.repeat(maxJsonShown * 2) });
    expect(text.length).to.be.lessThan(maxJsonShown + 200);
    expect(text).to.match(/… \d+ more characters/);
  });
});
