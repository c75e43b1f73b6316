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
const entry = (statuses: ReturnType<typeof attestation>[]) => ({
  status: statuses.every((s) => s.is_compliant) ? ('COMPLIANT' as const) : ('NON-COMPLIANT' as const),
  is_compliant: statuses.every((s) => s.is_compliant),
  unexpected: false,
  attestations_statuses: statuses,
});

describe("an artifact's state from its trail's compliance", () => {
  it('COMPLIANT, INCOMPLETE while only missing, NON-COMPLIANT once one made fails; the reasons that name it', () => {
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
