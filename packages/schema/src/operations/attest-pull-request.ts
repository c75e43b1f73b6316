import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { paths } from '../paths.ts';
import { Literals, LongText, Nullable, ShortText, Url } from '../shared.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** The providers `kosli attest pullrequest` has a command for (`ProviderAndLabel`). */
export const gitProviders = ['github', 'gitlab', 'bitbucket', 'azure'] as const;

const Seconds = Type.Integer({ minimum: 0, maximum: 1e11 });

/** An approver: a user name (the CLI's V1 retrievers) or `types.PRApprovals` (V2: with the review's state and time). */
const PullRequestApprover = Type.Union([
  ShortText(),
  Type.Object({ username: ShortText(), state: Type.Optional(ShortText()), timestamp: Type.Optional(Seconds) }, { additionalProperties: false }),
]);

/** `types.Commit`: `verified` and `signature_state` since CLI v2.27. */
const PullRequestCommit = Type.Object(
  {
    sha1: ShortText(),
    message: LongText(),
    author: ShortText(),
    author_username: Type.Optional(ShortText()),
    timestamp: Seconds,
    branch: ShortText(),
    url: Type.Optional(Url()),
    verified: Type.Optional(Type.Boolean()),
    signature_state: Type.Optional(ShortText()),
  },
  { additionalProperties: false },
);

/** `types.PREvidence`: `commits` always present (cli#1081), `base_ref` since CLI v2.27. */
export const PullRequestEvidence = Type.Object(
  {
    merge_commit: ShortText(),
    url: Url(),
    state: ShortText(),
    approvers: Type.Array(PullRequestApprover, { maxItems: limits.smallArray }),
    author: ShortText(),
    created_at: Type.Optional(Seconds),
    merged_at: Type.Optional(Seconds),
    title: Type.Optional(LongText()),
    head_ref: Type.Optional(ShortText()),
    base_ref: Type.Optional(ShortText()),
    commits: Type.Array(PullRequestCommit, { maxItems: limits.smallArray * 10 }),
  },
  { $id: 'PullRequestEvidence', additionalProperties: false },
);

/** `PRAttestationPayload` (cmd/kosli/pullrequest.go): the common fields, the provider and the pull requests found for the commit. */
export const PullRequestAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    git_provider: Literals(gitProviders),
    pull_requests: Nullable(Type.Array(Type.Ref(PullRequestEvidence), { maxItems: limits.smallArray })),
    ...commonAttestationFields,
  },
  { $id: 'PullRequestAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/pull_request */
export const attestPullRequest = defineOperation({
  id: 'attestPullRequest',
  summary: 'Attest pull requests',
  description: 'Attach the pull requests found for a commit to a trail: compliant when at least one was found. The trail must exist.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestPullRequest,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(PullRequestAttestationInput),
  responses: attestationResponses,
  schemas: [PullRequestEvidence, PullRequestAttestationInput],
});
