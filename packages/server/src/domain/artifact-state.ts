/** An artifact's state as Kosli shows it, from its trail's compliance status. */
import type { ArtifactState, ComplianceStatus } from './compliance.ts';

export type { ArtifactState };

/**
 * The state of an artifact named `templateReferenceName` in its trail's compliance: its entry's
 * (COMPLIANT, INCOMPLETE while an attestation it needs is missing, NON-COMPLIANT once one made
 * fails), or the trail's when no entry names it; `info` gives the reasons that concern it.
 */
export function artifactStateOf(compliance: ComplianceStatus, templateReferenceName: string): { state: ArtifactState; info: string } {
  const entry = compliance.artifacts_statuses[templateReferenceName];
  const mine = entry ? compliance.reasons.filter((r) => r.startsWith(`artifact '${templateReferenceName}'`)) : compliance.reasons;
  const info = mine.join('; ');
  if (!entry) return { state: compliance.is_compliant ? 'COMPLIANT' : 'NON-COMPLIANT', info };
  // A reported artifact's entry is never MISSING (it names the artifact); were it so, evidence is still awaited.
  return { state: entry.status === 'MISSING' ? 'INCOMPLETE' : entry.status, info };
}
