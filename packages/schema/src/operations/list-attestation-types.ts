import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { PathName } from '../shared.ts';
import { AttestationType, attestationTypeSchemas } from './attestation-type.ts';

/** GET /custom-attestation-types/{org}: a JSON array, as `kosli list attestation-types` reads it. */
export const listAttestationTypes = defineOperation({
  id: 'listAttestationTypes',
  summary: 'List custom attestation types',
  description: "The organisation's custom attestation types that are not archived, by name, each with its versions.",
  tags: ['Attestation types'],
  method: 'GET',
  path: paths.listAttestationTypes,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: undefined,
  responses: { 200: { description: 'The types', schema: Type.Array(Type.Ref(AttestationType)) } },
  schemas: attestationTypeSchemas,
});
