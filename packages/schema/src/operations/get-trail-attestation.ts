import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody } from '../shared.ts';
import { AttestationName, TrailPathParams } from './attestation-input.ts';
import { trailSchemas } from './trail.ts';
import { AttestationDetail, attestationDetailSchemas } from './attestation-detail.ts';

/** GET /attestations/{org}/{flow_name}/trail/{trail_name}/{attestation_name} (cmd/kosli/getAttestation.go): a JSON array. */
export const getTrailAttestation = defineOperation({
  id: 'getTrailAttestation',
  summary: 'Get the attestations of a name on a trail',
  description:
    'Every attestation of that name on the trail, oldest first (the latest is the one that counts): the newest 100 at most, and no more ' +
    'than 4 MiB of their data (the newest one at least); older ones are read by id.',
  tags: ['Attestations'],
  method: 'GET',
  path: paths.getTrailAttestation,
  access: 'read',
  params: Type.Object({ ...TrailPathParams.properties, attestation_name: AttestationName }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The attestations', schema: Type.Array(Type.Ref(AttestationDetail)) },
    404: { description: 'Flow, trail or attestation not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [...trailSchemas, ...attestationDetailSchemas],
});
