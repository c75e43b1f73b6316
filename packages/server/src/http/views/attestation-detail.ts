/** One attestation read back by id or by name: the trail's view of it, where it is, and its type's own fields. */
import type { AttestationDetailBody } from '@trailproof/schema';
import type { AttestationRow } from '../../store/types.ts';
import { trailHref, type ViewContext } from '../links.ts';
import { attestationView } from './trails.ts';

/** The fields a type adds (what `kosli evaluate trail` hands to the policy), from the data as stored. */
function typeFields(a: AttestationRow): Partial<AttestationDetailBody> {
  const data = (a.data ?? {}) as Record<string, unknown>;
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
