import { expect } from 'chai';
import { artifactStateOf } from './artifact-state.ts';
import type { ComplianceStatus } from './compliance.ts';

const attestation = (status: 'MISSING' | 'COMPLETE', compliant: boolean) => ({
  attestation_name: 'unit-tests',
  attestation_type: 'generic',
  attestation_id: status === 'MISSING' ? null : '1',
  status,
  is_compliant: compliant,
  unexpected: false,
  reason: compliant ? null : "artifact 'backend': attestation 'unit-tests' is not compliant",
});
const compliance = (entries: ComplianceStatus['artifacts_statuses'], reasons: string[] = []): ComplianceStatus => ({
  status: reasons.length ? 'NON-COMPLIANT' : 'COMPLIANT',
  is_compliant: reasons.length === 0,
  reasons,
  attestations_statuses: [],
  artifacts_statuses: entries,
  evaluated_at: 1,
  flow_template_id: null,
});
/** An entry as evaluateCompliance makes it. */
const entry = (statuses: ReturnType<typeof attestation>[]) => {
  const status = statuses.some((s) => s.status === 'COMPLETE' && !s.is_compliant)
    ? ('NON-COMPLIANT' as const)
    : statuses.some((s) => s.status === 'MISSING')
      ? ('INCOMPLETE' as const)
      : ('COMPLIANT' as const);
  return {
    artifact_fingerprint: 'a'.repeat(64),
    artifact_id: '1',
    status,
    is_compliant: status === 'COMPLIANT',
    unexpected: false,
    attestations_statuses: statuses,
    evaluated_at: 1,
    flow_template_id: null,
  };
};

describe("an artifact's state from its trail's compliance", () => {
  it("its entry's state, with the reasons that name it", () => {
    expect(artifactStateOf(compliance({ backend: entry([attestation('COMPLETE', true)]) }), 'backend')).to.deep.equal({ state: 'COMPLIANT', info: '' });
    const missing = "artifact 'backend': attestation 'unit-tests' is missing";
    expect(artifactStateOf(compliance({ backend: entry([attestation('MISSING', false)]) }, [missing, 'trail: other']), 'backend')).to.deep.equal({
      state: 'INCOMPLETE',
      info: missing,
    });
    expect(
      artifactStateOf(compliance({ backend: entry([attestation('MISSING', false), attestation('COMPLETE', false)]) }, [missing]), 'backend').state,
    ).to.equal('NON-COMPLIANT');
  });

  it("named by no entry: the trail's state", () => {
    expect(artifactStateOf(compliance({}), 'api').state).to.equal('COMPLIANT');
    expect(artifactStateOf(compliance({}, ["attestation 'scan' is not compliant"]), 'api')).to.deep.equal({
      state: 'NON-COMPLIANT',
      info: "attestation 'scan' is not compliant",
    });
  });
});
