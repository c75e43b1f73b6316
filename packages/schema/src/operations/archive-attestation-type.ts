import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody } from '../shared.ts';
import { AttestationTypeParams } from './attestation-type.ts';

/** PUT /custom-attestation-types/{org}/{type_name}/archive */
export const archiveAttestationType = defineOperation({
  id: 'archiveAttestationType',
  summary: 'Archive a custom attestation type',
  description: 'Archive a type: it leaves the list and takes no new attestations; its versions and attestations stay readable.',
  tags: ['Attestation types'],
  method: 'PUT',
  path: paths.archiveAttestationType,
  access: 'write',
  params: AttestationTypeParams,
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'Archived', schema: Type.String() },
    404: { description: 'No such type', schema: Type.Ref(ErrorBody) },
  },
});
