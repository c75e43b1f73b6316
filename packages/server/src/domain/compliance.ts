/**
 * Trail compliance, a pure function of the template and the attestations:
 *
 * - the latest attestation of a name (per target artifact, or trail-level) is the one that counts;
 *   earlier ones stay stored but no longer decide anything;
 * - a required attestation that is missing, of another type, or not compliant makes the trail
 *   non-compliant;
 * - attestations the template does not ask for still count: a non-compliant one makes the trail
 *   non-compliant too;
 * - without a template, the attestations made are all that counts.
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
}

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
  artifacts_statuses: Record<string, { status: State; is_compliant: boolean; unexpected: boolean; attestations_statuses: AttestationStatus[] }>;
  evaluated_at: number;
  flow_template_id: string | null;
}

const trailScope = '';
const keyOf = (scope: string, name: string) => `${scope}\u0000${name}`;
const scopesOf = (a: AttestationFacts) => (a.targets.length ? a.targets : [trailScope]);

/** The ids of the attestations that count: the latest of each name in each scope. */
export function countingAttestations(attestations: readonly AttestationFacts[]): Map<string, AttestationFacts> {
  const latest = new Map<string, AttestationFacts>();
  for (const a of [...attestations].sort((x, y) => x.id - y.id)) for (const scope of scopesOf(a)) latest.set(keyOf(scope, a.name), a);
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
): ComplianceStatus {
  const latest = countingAttestations(attestations);
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
  const artifacts: ComplianceStatus['artifacts_statuses'] = {};
  const artifactEntry = (name: string, unexpected: boolean) =>
    (artifacts[name] ??= { status: 'COMPLIANT', is_compliant: true, unexpected, attestations_statuses: [] });
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
  for (const entry of Object.values(artifacts)) {
    entry.is_compliant = entry.attestations_statuses.every((s) => s.is_compliant);
    entry.status = entry.is_compliant ? 'COMPLIANT' : 'NON-COMPLIANT';
  }

  const compliant = reasons.length === 0;
  return {
    status: compliant ? 'COMPLIANT' : 'NON-COMPLIANT',
    is_compliant: compliant,
    reasons,
    attestations_statuses: attestationsStatuses,
    artifacts_statuses: artifacts,
    evaluated_at: now,
    flow_template_id: templateId,
  };
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
