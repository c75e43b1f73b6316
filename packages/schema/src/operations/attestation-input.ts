/**
 * What every attestation operation shares: its name, the trail it goes to, the common fields of
 * its `data_json`, its body (with an optional attachment) and its answers.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { MultipartBody } from '../contract.ts';
import { limits } from '../limits.ts';
import { AttestationNamePattern } from '../patterns.ts';
import { ErrorBody, ExternalUrls, GitCommitInfo, JsonObject, LongText, Nullable, PathName, RepoInfo, Sha256Hex, Url, UserData } from '../shared.ts';

export const AttestationName = Type.String({ minLength: 1, maxLength: limits.name, pattern: AttestationNamePattern });

export const TrailPathParams = Type.Object({
  org: PathName('Organisation'),
  flow_name: PathName('Flow name'),
  trail_name: PathName('Trail name'),
});

/**
 * The fields of `data_json` that every attestation type takes (as Kosli's API does), beside
 * `attestation_name`; each type adds its own (`junit_results`, `is_compliant`, ...).
 */
export const commonAttestationFields = {
  origin_url: Nullable(Url()),
  description: Nullable(LongText()),
  artifact_fingerprint: Nullable(Sha256Hex),
  target_artifacts: Nullable(Type.Array(AttestationName, { maxItems: limits.smallArray })),
  git_commit_info: Nullable(Type.Ref(GitCommitInfo)),
  repo_info: Nullable(Type.Ref(RepoInfo)),
  external_urls: Nullable(Type.Ref(ExternalUrls)),
  annotations: Nullable(JsonObject('Annotations by key (free-form values)')),
  user_data: Nullable(Type.Ref(UserData)),
};

/** An attestation's body: `data_json` of the type's input, and an optional attachment (10MB at most). */
export const attestationBody = <D extends TSchema>(data: D): MultipartBody<D> => ({
  kind: 'multipart',
  data,
  files: { attachment_file: { description: 'Optional attachment (max 10MB)', maxBytes: limits.fileBytes } },
});

/** An attestation's answers (401 and 403 come from the router): 201 with a sentence naming it and its trail. */
export const attestationResponses = {
  201: { description: 'Attestation created', schema: Type.String() },
  400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
  404: { description: 'Flow or trail not found', schema: Type.Ref(ErrorBody) },
};
