import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody } from '../shared.ts';
import { AttestationType, AttestationTypeParams, attestationTypeSchemas } from './attestation-type.ts';

/** GET /custom-attestation-types/{org}/{type_name}: `kosli get attestation-type NAME[@vN]` sends `@vN` as `?version=N`. */
export const getAttestationType = defineOperation({
  id: 'getAttestationType',
  summary: 'Get a custom attestation type',
  description: 'A custom attestation type with all its versions, or with only the one `version` names.',
  tags: ['Attestation types'],
  method: 'GET',
  path: paths.getAttestationType,
  access: 'read',
  params: AttestationTypeParams,
  query: Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })) }),
  body: undefined,
  responses: {
    200: { description: 'The type', schema: Type.Ref(AttestationType) },
    400: { description: 'Invalid version', schema: Type.Ref(ErrorBody) },
    404: { description: 'No such type or version', schema: Type.Ref(ErrorBody) },
  },
  schemas: attestationTypeSchemas,
});
