/** An artifact's state as Kosli shows it, from its trail's compliance status. */
import type { ComplianceStatus } from './compliance.ts';

export type ArtifactState = 'COMPLIANT' | 'NON-COMPLIANT' | 'INCOMPLETE';

/**
 * The state of the artifact named `templateReferenceName` in its trail's compliance: its entry's
 * (INCOMPLETE while an attestation it needs is missing and none made is failing), or the trail's
 * when no entry names it; `info` gives the reasons that concern it.
 */
export function artifactStateOf(compliance: ComplianceStatus, templateReferenceName: string): { state: ArtifactState; info: string } {
  const entry = compliance.artifacts_statuses[templateReferenceName];
  const mine = entry ? compliance.reasons.filter((r) => r.startsWith(`artifact '${templateReferenceName}'`)) : compliance.reasons;
  const info = mine.join('; ');
  if (!entry) return { state: compliance.is_compliant ? 'COMPLIANT' : 'NON-COMPLIANT', info };
  if (entry.is_compliant) return { state: 'COMPLIANT', info };
  const failing = entry.attestations_statuses.some((s) => s.status === 'COMPLETE' && !s.is_compliant);
  return { state: failing ? 'NON-COMPLIANT' : 'INCOMPLETE', info };
}
