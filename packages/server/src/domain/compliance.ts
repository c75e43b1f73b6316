/**
 * Trail compliance, a pure function of the template and the attestations:
 *
 * - the latest attestation of a name (per target artifact, or trail-level) is the one that counts;
 *   earlier ones stay stored but no longer decide anything;
 * - a required attestation that is missing, of another type, or not compliant makes the trail
 *   non-compliant;
 * - attestations the template does not ask for still count: a non-compliant one makes the trail
 *   non-compliant too;
 * - without a template, the attestations made are all that counts;
 * - an attestation counts for the template artifacts it names, else for the reported artifact
 *   whose fingerprint it carries (in either order of arrival), else for the trail;
 * - an artifact is NON-COMPLIANT when one of its attestations is not compliant, else MISSING while
 *   none is reported under its name, INCOMPLETE when an attestation it needs is missing, COMPLIANT
 *   otherwise (Kosli's states); the trail's verdict is as before.
 */
import type { TemplateError, TemplateModel, TemplateRequirement } from './template.ts';

/** What compliance needs to know of one attestation. */
export interface AttestationFacts {
  id: number;
  name: string;
  type: string;
  compliant: boolean;
  /** Template artifact names it attests for; empty for a trail-level attestation. */
  targets: string[];
  /** The artifact fingerprint it carries, if any: it binds to the trail's artifact with it. */
  fingerprint?: string | null;
  /** When it was made (epoch seconds), where known: compliance does not need it, a trail's events do. */
  createdAt?: number;
}

/** What compliance needs to know of an artifact reported to the trail. */
export interface ReportedArtifact {
  id: number;
  fingerprint: string;
  /** Its template name (`template_reference_name`). */
  name: string;
}

/** One artifact's compliance in a trail, as Kosli's `ArtifactComplianceStatus` has it. */
export interface ArtifactStatus {
  /** The latest reported artifact of the name; else the fingerprint its latest attestation carries; else null. */
  artifact_fingerprint: string | null;
  artifact_id: string | null;
  status: ArtifactEntryState;
  is_compliant: boolean;
  unexpected: boolean;
  attestations_statuses: AttestationStatus[];
  evaluated_at: number;
  flow_template_id: string | null;
}

export type ArtifactState = 'COMPLIANT' | 'NON-COMPLIANT' | 'INCOMPLETE';
/** A trail's entry for a template name: MISSING while no artifact is reported under it (Kosli's `ArtifactComplianceStatus`). */
export type ArtifactEntryState = ArtifactState | 'MISSING';

export interface AttestationStatus {
  attestation_name: string;
  attestation_type: string | null;
  attestation_id: string | null;
  status: 'MISSING' | 'COMPLETE';
  is_compliant: boolean;
  unexpected: boolean;
  reason: string | null;
}

type State = 'COMPLIANT' | 'NON-COMPLIANT';

export interface ComplianceStatus {
  status: State;
  is_compliant: boolean;
  reasons: string[];
  attestations_statuses: AttestationStatus[];
  artifacts_statuses: Record<string, ArtifactStatus>;
  evaluated_at: number;
  flow_template_id: string | null;
}

const trailScope = '';
const keyOf = (scope: string, name: string) => `${scope}\u0000${name}`;
/** The template names of the reported artifacts, by fingerprint. */
const namesByFingerprint = (artifacts: readonly ReportedArtifact[]) => new Map(artifacts.map((r) => [r.fingerprint, r.name]));

/** Where an attestation counts: the artifacts it names, else the reported artifact of its fingerprint, else the trail. */
const scopesOf = (a: AttestationFacts, byFingerprint: ReadonlyMap<string, string>): string[] => {
  if (a.targets.length) return a.targets;
  const bound = a.fingerprint ? byFingerprint.get(a.fingerprint) : undefined;
  return [bound ?? trailScope];
};

/** How an override's type starts: `override:<the type of what it overrides>`. */
export const overridePrefix = 'override:';

/**
 * The type an attestation stands as: an override (`override:snyk`) stands in for the attestation it
 * overrode, so a template or policy asking for a `snyk` attestation of the name is answered by it.
 */
export const evidenceType = (type: string) => (type.startsWith(overridePrefix) ? type.slice(overridePrefix.length) : type);

/** The ids of the attestations that count: the latest of each name in each scope (an override, the latest, counts in place of what it overrode). */
export function countingAttestations(attestations: readonly AttestationFacts[], artifacts: readonly ReportedArtifact[] = []): Map<string, AttestationFacts> {
  const byFingerprint = namesByFingerprint(artifacts);
  const latest = new Map<string, AttestationFacts>();
  for (const a of [...attestations].sort((x, y) => x.id - y.id)) {
    const standing = a.type.startsWith(overridePrefix) ? { ...a, type: evidenceType(a.type) } : a;
    for (const scope of scopesOf(a, byFingerprint)) latest.set(keyOf(scope, a.name), standing);
  }
  return latest;
}

/**
 * Evaluates a trail. `template` is null without one; a `TemplateError` (a stored template that no
 * longer parses) makes the trail non-compliant and the attestations made are evaluated on their own.
 */
export function evaluateCompliance(
  template: TemplateModel | TemplateError | null,
  templateId: string | null,
  attestations: readonly AttestationFacts[],
  now: number,
  artifacts: readonly ReportedArtifact[] = [],
): ComplianceStatus {
  const latest = countingAttestations(attestations, artifacts);
  const used = new Set<string>();
  const reasons: string[] = [];
  const model = template instanceof Error ? null : template;
  if (template instanceof Error) reasons.push(`the template is not valid: ${template.message}`);

  const required = (scope: string, requirement: TemplateRequirement): AttestationStatus => {
    const key = keyOf(scope, requirement.name);
    used.add(key);
    const found = latest.get(key);
    const where = scope === trailScope ? '' : `artifact '${scope}': `;
    if (!found) {
      const reason = `${where}required attestation '${requirement.name}' (${requirement.type}) is missing`;
      reasons.push(reason);
      return {
        attestation_name: requirement.name,
        attestation_type: requirement.type,
        attestation_id: null,
        status: 'MISSING',
        is_compliant: false,
        unexpected: false,
        reason,
      };
    }
    let reason: string | null = null;
    if (requirement.type !== '*' && found.type !== requirement.type) {
      reason = `${where}attestation '${found.name}' is of type '${found.type}' but the template requires '${requirement.type}'`;
    } else if (!found.compliant) {
      reason = `${where}attestation '${found.name}' is not compliant`;
    }
    if (reason) reasons.push(reason);
    return status(found, reason, false);
  };
  const extra = (scope: string, found: AttestationFacts): AttestationStatus => {
    const where = scope === trailScope ? '' : `artifact '${scope}': `;
    const outside = model ? ' (not in the template)' : '';
    const reason = found.compliant ? null : `${where}attestation '${found.name}'${outside} is not compliant`;
    if (reason) reasons.push(reason);
    return status(found, reason, model !== null);
  };

  const attestationsStatuses = (model?.trail.attestations ?? []).map((r) => required(trailScope, r));
  const statuses: ComplianceStatus['artifacts_statuses'] = {};
  const artifactEntry = (name: string, unexpected: boolean) =>
    (statuses[name] ??= {
      artifact_fingerprint: null,
      artifact_id: null,
      status: 'COMPLIANT',
      is_compliant: true,
      unexpected,
      attestations_statuses: [],
      evaluated_at: now,
      flow_template_id: templateId,
    });
  for (const artifact of model?.trail.artifacts ?? []) {
    artifactEntry(artifact.name, false).attestations_statuses.push(...artifact.attestations.map((r) => required(artifact.name, r)));
  }
  // What the template does not ask for, in a stable order: trail-level first, then by artifact and name.
  const others = [...latest.entries()].filter(([key]) => !used.has(key)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, found] of others) {
    const scope = key.slice(0, key.indexOf('\u0000'));
    if (scope === trailScope) attestationsStatuses.push(extra(scope, found));
    else artifactEntry(scope, model !== null && !model.trail.artifacts.some((a) => a.name === scope)).attestations_statuses.push(extra(scope, found));
  }
  const unexpectedName = (name: string) => model !== null && !model.trail.artifacts.some((a) => a.name === name);
  // Reported artifacts, oldest first: the latest of a name is the one its entry shows.
  for (const r of [...artifacts].sort((x, y) => x.id - y.id)) {
    const entry = artifactEntry(r.name, unexpectedName(r.name));
    entry.artifact_fingerprint = r.fingerprint;
    entry.artifact_id = String(r.id);
  }
  for (const [name, entry] of Object.entries(statuses)) {
    // Attestations made before artifacts were reported (or without one) still say which artifact they were about.
    if (entry.artifact_id === null) entry.artifact_fingerprint = latestFingerprintIn(latest, name);
    const failed = entry.attestations_statuses.some((s) => s.status === 'COMPLETE' && !s.is_compliant);
    const missing = entry.attestations_statuses.some((s) => s.status === 'MISSING');
    // A failure is news even before the artifact is reported; otherwise an unreported artifact is what is missing.
    entry.status = failed ? 'NON-COMPLIANT' : entry.artifact_id === null ? 'MISSING' : missing ? 'INCOMPLETE' : 'COMPLIANT';
    entry.is_compliant = entry.status === 'COMPLIANT';
  }

  const compliant = reasons.length === 0;
  return {
    status: compliant ? 'COMPLIANT' : 'NON-COMPLIANT',
    is_compliant: compliant,
    reasons,
    attestations_statuses: attestationsStatuses,
    artifacts_statuses: statuses,
    evaluated_at: now,
    flow_template_id: templateId,
  };
}

/** The fingerprint carried by the latest counting attestation of a scope, if any carries one. */
function latestFingerprintIn(latest: ReadonlyMap<string, AttestationFacts>, scope: string): string | null {
  let found: AttestationFacts | undefined;
  for (const [key, a] of latest) if (key.startsWith(keyOf(scope, '')) && a.fingerprint && (!found || a.id > found.id)) found = a;
  return found?.fingerprint ?? null;
}

function status(found: AttestationFacts, reason: string | null, unexpected: boolean): AttestationStatus {
  return {
    attestation_name: found.name,
    attestation_type: found.type,
    attestation_id: String(found.id),
    status: 'COMPLETE',
    is_compliant: reason === null,
    unexpected,
    reason,
  };
}
