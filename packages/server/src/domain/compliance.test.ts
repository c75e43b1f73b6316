import { expect } from 'chai';
import { evaluateCompliance, type AttestationFacts } from './compliance.ts';
import { TemplateError, type TemplateModel } from './template.ts';

const template: TemplateModel = {
  version: 1,
  trail: {
    attestations: [
      { name: 'jira', type: 'jira' },
      { name: 'review', type: '*' },
    ],
    artifacts: [{ name: 'backend', attestations: [{ name: 'unit', type: 'junit' }] }],
  },
};

let nextId = 1;
const made = (name: string, type: string, compliant: boolean, targets: string[] = []): AttestationFacts => ({ id: nextId++, name, type, compliant, targets });

describe('trail compliance', () => {
  it('is compliant when every required attestation is there and compliant', () => {
    const result = evaluateCompliance(
      template,
      'abc',
      [made('jira', 'jira', true), made('review', 'generic', true), made('unit', 'junit', true, ['backend'])],
      100,
    );
    expect(result).to.deep.include({ status: 'COMPLIANT', is_compliant: true, reasons: [], evaluated_at: 100, flow_template_id: 'abc' });
    expect(result.attestations_statuses.map((s) => [s.attestation_name, s.status, s.is_compliant, s.unexpected])).to.deep.equal([
      ['jira', 'COMPLETE', true, false],
      ['review', 'COMPLETE', true, false],
    ]);
    // Not reported yet: MISSING, as Kosli shows it; the trail's verdict does not change.
    expect(result.artifacts_statuses.backend).to.deep.include({ status: 'MISSING', is_compliant: false, unexpected: false });
    const reported = evaluateCompliance(
      template,
      'abc',
      [made('jira', 'jira', true), made('review', 'generic', true), made('unit', 'junit', true, ['backend'])],
      100,
      [{ id: 7, fingerprint: 'f'.repeat(64), name: 'backend' }],
    );
    expect(reported.artifacts_statuses.backend).to.deep.include({ status: 'COMPLIANT', is_compliant: true, artifact_id: '7' });
  });

  it('a template artifact not reported is MISSING, unless an attestation of it fails; once reported, INCOMPLETE until its evidence is there', () => {
    const artifact = [{ id: 9, fingerprint: 'a'.repeat(64), name: 'backend' }];
    const trail = [made('jira', 'jira', true), made('review', 'generic', true)];
    const missing = evaluateCompliance(template, 'abc', trail, 1);
    expect(missing.artifacts_statuses.backend).to.deep.include({ status: 'MISSING', artifact_fingerprint: null, artifact_id: null });
    expect(missing.artifacts_statuses.backend!.attestations_statuses.map((s) => s.status)).to.deep.equal(['MISSING']);
    expect(evaluateCompliance(template, 'abc', [...trail, made('unit', 'junit', false, ['backend'])], 1).artifacts_statuses.backend!.status).to.equal(
      'NON-COMPLIANT',
    );
    expect(evaluateCompliance(template, 'abc', trail, 1, artifact).artifacts_statuses.backend).to.deep.include({ status: 'INCOMPLETE', artifact_id: '9' });
  });

  it('names what is missing, failing or of the wrong type', () => {
    const result = evaluateCompliance(template, 'abc', [made('jira', 'generic', true), made('unit', 'junit', false, ['backend'])], 100);
    expect(result.status).to.equal('NON-COMPLIANT');
    expect(result.is_compliant).to.equal(false);
    expect(result.reasons).to.deep.equal([
      "attestation 'jira' is of type 'generic' but the template requires 'jira'",
      "required attestation 'review' (*) is missing",
      "artifact 'backend': attestation 'unit' is not compliant",
    ]);
    const review = result.attestations_statuses.find((s) => s.attestation_name === 'review')!;
    expect(review).to.deep.equal({
      attestation_name: 'review',
      attestation_type: '*',
      attestation_id: null,
      status: 'MISSING',
      is_compliant: false,
      unexpected: false,
      reason: "required attestation 'review' (*) is missing",
    });
    expect(result.artifacts_statuses.backend!.status).to.equal('NON-COMPLIANT');
  });

  it('counts the latest attestation of a name; earlier ones no longer decide', () => {
    const failing = made('unit', 'junit', false, ['backend']);
    const fixed = made('unit', 'junit', true, ['backend']);
    const others = [made('jira', 'jira', true), made('review', 'generic', true)];
    expect(evaluateCompliance(template, null, [...others, failing], 1).is_compliant).to.equal(false);
    const result = evaluateCompliance(
      template,
      null,
      [...others, fixed, failing].sort((a, b) => b.id - a.id),
      1,
    );
    expect(result.is_compliant).to.equal(true);
    expect(result.artifacts_statuses.backend!.attestations_statuses[0]!.attestation_id).to.equal(String(fixed.id));
  });

  it('counts attestations outside the template, at trail level and for unknown artifacts', () => {
    const base = [made('jira', 'jira', true), made('review', 'generic', true), made('unit', 'junit', true, ['backend'])];
    const result = evaluateCompliance(template, null, [...base, made('lint', 'generic', false), made('scan', 'snyk', true, ['frontend'])], 1);
    expect(result.reasons).to.deep.equal(["attestation 'lint' (not in the template) is not compliant"]);
    expect(result.attestations_statuses.find((s) => s.attestation_name === 'lint')).to.deep.include({ unexpected: true, is_compliant: false });
    expect(result.artifacts_statuses.frontend).to.deep.include({ unexpected: true, status: 'MISSING' });
  });

  it('without a template, the attestations made are what counts', () => {
    expect(evaluateCompliance(null, null, [], 1)).to.deep.include({ status: 'COMPLIANT', reasons: [] });
    expect(evaluateCompliance(null, null, [made('unit', 'junit', true)], 1).is_compliant).to.equal(true);
    const failing = evaluateCompliance(null, null, [made('unit', 'junit', true), made('e2e', 'junit', false)], 1);
    expect(failing.reasons).to.deep.equal(["attestation 'e2e' is not compliant"]);
    expect(failing.attestations_statuses.every((s) => s.unexpected === false)).to.equal(true);
  });

  it('a stored template that no longer parses makes the trail non-compliant, saying why', () => {
    const result = evaluateCompliance(new TemplateError(3, 'trail must be a mapping'), 'abc', [made('unit', 'junit', true)], 1);
    expect(result.reasons).to.deep.equal(['the template is not valid: line 3: trail must be a mapping']);
    expect(result.is_compliant).to.equal(false);
  });
});
