import { type Static, Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { paths } from '../paths.ts';
import { Nullable, Sha256Hex, ShortText, Url } from '../shared.ts';
import { AttestationName, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** `DecisionAttestationPayload` (cmd/kosli/attestDecision.go): the control assessed and the outcome, under `attestation_data` (cli 9158617c). */
export const DecisionAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    type_name: Type.Literal('decision'),
    control: ShortText({ minLength: 1, description: 'The control the decision assessed (`RCTL-043`)' }),
    attestation_data: Type.Object({ is_compliant: Type.Boolean() }, { additionalProperties: false }),
    ...commonAttestationFields,
  },
  { $id: 'DecisionAttestationInput', additionalProperties: false },
);

/** `sbom.Subject`: the one artifact the SBOM describes; what the document does not carry is null. */
const SbomSubject = Type.Object(
  { name: ShortText(), version: Nullable(ShortText()), purl: Nullable(Url()), sha256: Nullable(Type.String({ maxLength: 128 })) },
  { additionalProperties: false },
);

/** `SbomAttestationData` (cmd/kosli/attestSbom.go, CLI v2.41, cli#1168): the format, the file's SHA-256 and `sbom.Document`. */
export const SbomAttestationData = Type.Object(
  {
    format: Type.String({ pattern: '^(?:cyclonedx-[0-9]+\\.[0-9]+|spdx-[0-9]+\\.[0-9]+)$', maxLength: 32, examples: ['cyclonedx-1.6', 'spdx-2.3'] }),
    original_fingerprint: Sha256Hex,
    document: Type.Union([
      Type.Object(
        {
          // RFC 3339, as the CLI checks it (`createdAt`).
          created_at: Nullable(
            Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$', maxLength: 64 }),
          ),
          tools: Type.Union([Type.Array(ShortText(), { maxItems: limits.smallArray }), Type.Null()]),
          subject: Type.Union([SbomSubject, Type.Null()]),
          package_count: Type.Integer({ minimum: 0, maximum: 1e9 }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { $id: 'SbomAttestationData', additionalProperties: false },
);

/** `SbomAttestationPayload`: sent to the same `system` route as a decision, told apart by `type_name`. */
export const SbomAttestationInput = Type.Object(
  { attestation_name: AttestationName, type_name: Type.Literal('sbom'), attestation_data: Type.Ref(SbomAttestationData), ...commonAttestationFields },
  { $id: 'SbomAttestationInput', additionalProperties: false },
);

/** A system attestation: the route's family, the type named in the body (`type_name` picks the schema it is checked by). */
export const SystemAttestationInput = Type.Unsafe<Static<typeof DecisionAttestationInput> | Static<typeof SbomAttestationInput>>({
  $id: 'SystemAttestationInput',
  type: 'object',
  discriminator: { propertyName: 'type_name' },
  required: ['type_name'],
  oneOf: [DecisionAttestationInput, SbomAttestationInput].map((schema) => ({ $ref: schema.$id })),
});

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/system */
export const attestSystem = defineOperation({
  id: 'attestSystem',
  summary: 'Attest a decision or an SBOM',
  description:
    'The attestation types Kosli defines, told apart by `type_name`: a `decision` on a control (`kosli attest decision`), compliant as ' +
    '`attestation_data.is_compliant` says; an `sbom` (`kosli attest sbom`, CLI v2.41) with the raw CycloneDX or SPDX document as the ' +
    'attachment (10 MB), whose SHA-256 must be `original_fingerprint`: compliant when the document, as the server reads it, agrees with ' +
    'the format and package count sent. A trail not begun is begun.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestSystem,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    data: SystemAttestationInput,
    files: { attachment_file: { description: 'An attachment; for an sbom, the SBOM file itself (max 10MB)', maxBytes: limits.fileBytes } },
  },
  responses: attestationResponses,
  schemas: [DecisionAttestationInput, SbomAttestationData, SbomAttestationInput, SystemAttestationInput],
});
