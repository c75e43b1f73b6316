/** One attestation read back by id or by name: the trail's view of it, where it is, and its type's own fields. */
import type { AttestationDetailBody } from '@trailproof/schema';
import { overridePrefix } from '../../domain/compliance.ts';
import type { AttestationRow } from '../../store/types.ts';
import { trailHref, type ViewContext } from '../links.ts';
import { attestationView } from './trails.ts';

/** The fields of its data each built-in type reads back as sent (`evaluate trail` hands them to the policy). */
const sentFields: Partial<Record<string, readonly (keyof AttestationDetailBody)[]>> = {
  snyk: ['snyk_results'],
  sonar: ['sonar_results'],
  jira: ['jira_results'],
  decision: ['type_name', 'control', 'attestation_data'],
  sbom: ['type_name', 'attestation_data', 'sbom_verification'],
};
const overrideFields = ['reason', 'new_compliance_status', 'original_attestation_type', 'overridden_attestation_id', 'overridden_compliance'] as const;

/** The fields a type adds (what `kosli evaluate trail` hands to the policy), from the data as stored. */
function typeFields(a: AttestationRow): Partial<AttestationDetailBody> {
  const data = (a.data ?? {}) as Record<string, unknown>;
  const sent = a.type.startsWith(overridePrefix) ? overrideFields : sentFields[a.type];
  if (sent) return Object.fromEntries(sent.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
  if (a.type === 'pull_request')
    return { git_provider: String(data.git_provider), pull_requests: (data.pull_requests ?? []) as AttestationDetailBody['pull_requests'] };
  if (a.type.startsWith('custom:')) {
    return {
      type_name: String(data.type_name),
      attestation_data: data.attestation_data ?? null,
      ...(data.evaluation ? { evaluation: data.evaluation as AttestationDetailBody['evaluation'] } : {}),
    };
  }
  return {};
}

export function attestationDetail(
  a: AttestationRow,
  place: { flow: string; trail: string; latest: boolean; logIndex: number | null },
  at: ViewContext,
): AttestationDetailBody {
  const trailLink = trailHref(at, place.flow, place.trail);
  return {
    ...attestationView(a, place.latest, trailLink, place.logIndex),
    flow_name: place.flow,
    trail_name: place.trail,
    html_url: trailLink,
    ...typeFields(a),
  };
}
