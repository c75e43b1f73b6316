import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { attestationTypeLimits, attestationTypeSchemas, CreateAttestationTypeInput } from './attestation-type.ts';

/** POST /custom-attestation-types/{org} */
export const createAttestationType = defineOperation({
  id: 'createAttestationType',
  summary: 'Create or update a custom attestation type',
  description:
    'Create a custom attestation type (201) or add a version to it (200; the same definition again adds none), with an optional ' +
    'JSON Schema (type_schema) and jq rules. An invalid schema or a rule that does not compile is a 400 naming it.',
  tags: ['Attestation types'],
  method: 'POST',
  path: paths.createAttestationType,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    data: CreateAttestationTypeInput,
    files: { type_schema: { description: 'The JSON Schema attestations of the type must validate against', maxBytes: attestationTypeLimits.schemaBytes } },
  },
  responses: {
    200: { description: 'A new version, or none when nothing changed', schema: Type.String() },
    201: { description: 'Type created', schema: Type.String() },
    400: { description: 'Invalid input, schema or rule', schema: Type.Ref(ErrorBody) },
  },
  schemas: [CreateAttestationTypeInput, ...attestationTypeSchemas],
});
