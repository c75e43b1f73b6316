import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName, Sha256Hex } from '../shared.ts';
import { AttestationName } from './attestation-input.ts';
import { trailSchemas } from './trail.ts';
import { AttestationDetail, attestationDetailSchemas } from './attestation-detail.ts';

/** GET /attestations/{org}/{flow_name}/artifact/{fingerprint}/{attestation_name} (`kosli get attestation NAME --fingerprint`, getAttestation.go): a JSON array. */
export const getArtifactAttestation = defineOperation({
  id: 'getArtifactAttestation',
  summary: 'Get the attestations of a name on an artifact',
  description:
    'Every attestation of that name made for the artifact with the fingerprint in the flow (carrying its fingerprint, or naming the template artifact it was reported as), oldest first, in each trail it is in; the newest 100 of a trail at most.',
  tags: ['Attestations'],
  method: 'GET',
  path: paths.getArtifactAttestation,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name'), fingerprint: Sha256Hex, attestation_name: AttestationName }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The attestations', schema: Type.Array(Type.Ref(AttestationDetail)) },
    400: { description: 'Invalid fingerprint or name', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow, artifact or attestation not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [...trailSchemas, ...attestationDetailSchemas],
});
