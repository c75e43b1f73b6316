import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { trailSchemas } from './trail.ts';
import { AttestationDetails, attestationDetailSchemas } from './attestation-detail.ts';

/** GET /attestations/{org}?attestation_id=ID: what `kosli evaluate trail` reads for each `attestation_id` of a trail. */
export const getAttestation = defineOperation({
  id: 'getAttestation',
  summary: 'Get an attestation by id',
  description: "One of the organisation's attestations by its id, as `{data: [...]}`, with its type's fields (pull_requests, attestation_data, ...).",
  tags: ['Attestations'],
  method: 'GET',
  path: paths.getAttestation,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({ attestation_id: Type.String({ pattern: '^[0-9]{1,15}$', maxLength: 15, description: 'An attestation_id of a trail' }) }),
  body: undefined,
  responses: {
    200: { description: 'The attestation', schema: Type.Ref(AttestationDetails) },
    400: { description: 'Invalid id', schema: Type.Ref(ErrorBody) },
    404: { description: 'No such attestation in the organisation', schema: Type.Ref(ErrorBody) },
  },
  schemas: [...trailSchemas, ...attestationDetailSchemas],
});
