import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import {
  ErrorBody, ExternalUrls, GitCommitInfo, JsonObject, JunitResult, LongText, Nullable, PathName, RepoInfo, Sha256Hex, Url,
  UserData,
} from '../shared.ts';

export const AttestationName = Type.String({ minLength: 1, maxLength: limits.name, pattern: '^[a-zA-Z0-9\\-_,]+$' });

export const JunitAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    junit_results: Type.Array(Type.Ref(JunitResult), { maxItems: limits.junitResults }),
    origin_url: Nullable(Url()),
    description: Nullable(LongText()),
    artifact_fingerprint: Nullable(Sha256Hex),
    target_artifacts: Nullable(Type.Array(AttestationName, { maxItems: limits.smallArray })),
    git_commit_info: Nullable(Type.Ref(GitCommitInfo)),
    repo_info: Nullable(Type.Ref(RepoInfo)),
    external_urls: Nullable(Type.Ref(ExternalUrls)),
    annotations: Nullable(JsonObject('Annotations by key (free-form values)')),
    user_data: Nullable(Type.Ref(UserData)),
  },
  { $id: 'JunitAttestationInput', additionalProperties: false },
);

export const TrailPathParams = Type.Object({
  org: PathName('Organisation'),
  flow_name: PathName('Flow name'),
  trail_name: PathName('Trail name'),
});

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/junit */
export const attestJunit = defineOperation({
  id: 'attestJunit',
  summary: 'Attest JUnit test results',
  description: 'Attach JUnit test-suite results to a trail, with an optional attachment file. The trail must exist.',
  tags: ['Attestations'],
  method: 'POST',
  path: '/attestations/{org}/{flow_name}/trail/{trail_name}/junit',
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    data: JunitAttestationInput,
    files: { attachment_file: { description: 'Optional attachment (max 10MB)', maxBytes: limits.fileBytes } },
  },
  responses: {
    201: { description: 'Attestation created', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow or trail not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [JunitAttestationInput],
});
