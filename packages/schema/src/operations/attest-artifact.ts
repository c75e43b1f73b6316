import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, ExternalUrls, GitCommitInfo, Nullable, PathName, RepoInfo, Sha256Hex, ShortText, Url } from '../shared.ts';

/** An artifact's template name (`--name`): Kosli's `template_reference_name` pattern. */
export const TemplateReferenceName = Type.String({ minLength: 1, maxLength: limits.name, pattern: '^[a-zA-Z0-9\\-_]+$' });

/**
 * The body `kosli attest artifact` sends (cmd/kosli/attestArtifact.go `AttestArtifactPayload`):
 * the fingerprint of the thing built, the trail it is reported to, its template name and its commit.
 */
export const AttestArtifactInput = Type.Object(
  {
    fingerprint: Sha256Hex,
    filename: ShortText({ minLength: 1, description: 'The artifact as the CLI names it (`--display-name`, else the file or image name)' }),
    git_commit: Type.String({
      maxLength: 64,
      pattern: '^[a-f0-9]{7,64}$',
      description:
        'The commit it was built from: required, as the CLI always sends it (it reads the commit from the repository); `kosli list artifacts` prints its first 7 characters',
    }),
    git_commit_info: Nullable(Type.Ref(GitCommitInfo)),
    repo_info: Nullable(Type.Ref(RepoInfo)),
    build_url: Url({ description: 'The CI run that built it' }),
    commit_url: Url(),
    repo_url: Nullable(Url()),
    template_reference_name: TemplateReferenceName,
    trail_name: PathName('Trail name'),
    external_urls: Nullable(Type.Ref(ExternalUrls)),
    annotations: Nullable(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]+$', maxLength: limits.shortText }), ShortText(), {
        maxProperties: limits.objectKeys,
        additionalProperties: false,
        description: 'Labels by key (`--annotate key=value`)',
      }),
    ),
  },
  { $id: 'AttestArtifactInput', additionalProperties: false },
);

/** POST /artifacts/{org}/{flow_name} */
export const attestArtifact = defineOperation({
  id: 'attestArtifact',
  summary: 'Attest an artifact',
  description:
    'Report an artifact (by its SHA-256 fingerprint) to a trail: 201 when new, 200 when the trail has this fingerprint already (nothing stored). ' +
    'The flow and trail are created when they do not exist (without a template). Attestations bind to it by fingerprint, or by template name and commit.',
  tags: ['Artifacts'],
  method: 'POST',
  path: paths.attestArtifact,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name') }),
  query: Type.Object({}),
  body: { kind: 'json', data: AttestArtifactInput },
  responses: {
    200: { description: 'The trail has this artifact already', schema: Type.String() },
    201: { description: 'Artifact stored', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
  },
  schemas: [AttestArtifactInput],
});
