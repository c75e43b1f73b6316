import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { JunitResult } from '../shared.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

export const JunitAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    junit_results: Type.Array(Type.Ref(JunitResult), { maxItems: limits.junitResults }),
    ...commonAttestationFields,
  },
  { $id: 'JunitAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/junit */
export const attestJunit = defineOperation({
  id: 'attestJunit',
  summary: 'Attest JUnit test results',
  description: 'Attach JUnit test-suite results to a trail, with an optional attachment file. The trail must exist.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestJunit,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(JunitAttestationInput),
  responses: attestationResponses,
  schemas: [JunitAttestationInput],
});
