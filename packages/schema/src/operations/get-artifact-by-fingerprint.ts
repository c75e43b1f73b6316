import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Artifact, artifactSchemas, hexPrefix } from './artifact.ts';

/** GET /artifacts/{org}/{flow_name}/fingerprint/{fingerprint} */
export const getArtifactByFingerprint = defineOperation({
  id: 'getArtifactByFingerprint',
  summary: 'Get artifact by fingerprint',
  description:
    'The latest report of the artifact with this fingerprint (or a prefix of at least 7 characters that only one fingerprint of the flow has) ' +
    'in the flow, or in one trail of it, as `kosli get artifact flow@fingerprint` reads it: with where it runs, ran, and its history.',
  tags: ['Artifacts'],
  method: 'GET',
  path: paths.getArtifactByFingerprint,
  access: 'read',
  params: Type.Object({
    org: PathName('Organisation'),
    flow_name: PathName('Flow name'),
    fingerprint: hexPrefix(64, 'SHA-256 fingerprint, or a prefix of it, lower-case hex'),
  }),
  query: Type.Object({ trail: Type.Optional(PathName('Only the artifact reported to this trail')) }),
  body: undefined,
  responses: {
    200: { description: 'The artifact', schema: Type.Ref(Artifact) },
    400: { description: 'Not a fingerprint or a prefix of 7 characters or more, or a prefix of several fingerprints', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow or artifact not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: artifactSchemas,
});
