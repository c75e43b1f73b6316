/** A custom attestation type as the API answers it (`kosli get attestation-type` and `list attestation-types` read it). */
import type { AttestationTypeBody } from '@trailproof/schema';
import { createdByName } from '../../domain/created-by.ts';
import type { AttestationTypeRow, AttestationTypeVersionRow } from '../../store/queries/attestation-types.ts';

const parsed = (text: string | null): any => (text === null ? null : JSON.parse(text));

/** The type with `versions` (all of them, or the one asked for), oldest first. */
export function attestationTypeView(org: string, type: AttestationTypeRow, versions: readonly AttestationTypeVersionRow[]): AttestationTypeBody {
  return {
    name: type.name,
    // The latest version's description is the type's.
    description: versions.at(-1)?.description ?? null,
    org,
    archived: type.archived,
    created_by: createdByName(type.createdBy),
    created_at: type.createdAt,
    last_modified_at: type.lastModifiedAt,
    versions: versions.map((v) => ({
      version: v.version,
      timestamp: v.createdAt,
      created_by: createdByName(v.createdBy),
      description: v.description,
      type_schema: parsed(v.typeSchema),
      evaluator: parsed(v.evaluator),
      summary: parsed(v.summary),
      sha256: v.sha256,
    })),
  };
}
