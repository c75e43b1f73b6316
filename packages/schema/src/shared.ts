/**
 * Schemas shared by several operations, each registered once by `$id` and referenced with
 * `$ref` (`Type.Ref`). Types come from the same objects the validator compiles.
 */
import { Type, type SchemaOptions, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { limits } from './limits.ts';
import { NamePattern, Sha256Pattern } from './patterns.ts';

/** An optional field that may also be sent as `null`, as the reference API allows. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * A union of string literals that keeps each literal in its type: `Type.Union(values.map(Type.Literal))`
 * types as a union of `string`, which forced casts in handlers.
 */
export const Literals = <const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<Array<TLiteral<T[number]>>> =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as TUnion<Array<TLiteral<T[number]>>>;

export const ShortText = (extra: object = {}) => Type.String({ maxLength: limits.shortText, ...extra });
export const LongText = (extra: object = {}) => Type.String({ maxLength: limits.text, ...extra });
export const Url = (extra: object = {}) => Type.String({ maxLength: limits.url, ...extra });
/** Unix epoch seconds; fractions allowed. */
export const EpochSeconds = (extra: object = {}) => Type.Number({ minimum: 0, maximum: 1e11, ...extra });

export const PathName = (description: string) => Type.String({ minLength: 1, maxLength: limits.name, pattern: NamePattern, description });

/** A free-form JSON object with a bounded number of keys. */
export const JsonObject = (description: string) =>
  Type.Record(Type.String({ maxLength: limits.shortText }), Type.Unknown(), { maxProperties: limits.objectKeys, description });

export const Sha256Hex = Type.String({ pattern: Sha256Pattern, maxLength: 64, description: 'SHA-256 fingerprint, lower-case hex' });
export const CommitSha = Type.String({ pattern: '^[a-f0-9]{40}$', maxLength: 40, description: 'Git commit SHA-1, lower-case hex' });

export const GitCommitInfo = Type.Object(
  {
    sha1: Type.String({ minLength: 1, maxLength: 64, description: 'The SHA-1 hash of the commit' }),
    message: Nullable(LongText({ description: 'The commit message' })),
    author: Nullable(ShortText({ description: 'The commit author' })),
    author_username: Nullable(ShortText()),
    branch: Nullable(ShortText({ description: 'The branch name' })),
    timestamp: Nullable(EpochSeconds({ description: 'Commit time, Unix epoch seconds' })),
    url: Nullable(Url()),
    parents: Nullable(Type.Array(Type.String({ maxLength: 64 }), { maxItems: limits.smallArray })),
  },
  { $id: 'GitCommitInfo', description: 'Git commit information', maxProperties: 32 },
);
export type GitCommitInfo = Static<typeof GitCommitInfo>;

/**
 * Every `repo_info.provider` the Kosli CLI sends: what it fills in by itself in each CI (github,
 * gitlab, bitbucket_cloud, azure_devops_services or azure_devops_server, circleci) and what
 * `--repo-provider` accepts (its `repoProviderList`, cmd/kosli/attestation.go).
 */
export const repoProviders = [
  'github',
  'gitlab',
  'bitbucket',
  'bitbucket_cloud',
  'bitbucket_dc',
  'azure-devops',
  'azure_devops_services',
  'azure_devops_server',
  'git',
  'subversion',
  'circleci',
] as const;

export const RepoInfo = Type.Object(
  {
    name: ShortText({ minLength: 1 }),
    url: Url(),
    id: Nullable(ShortText()),
    description: Nullable(LongText()),
    provider: Nullable(Literals(repoProviders)),
    namespace_path: Nullable(
      Type.Array(ShortText(), {
        maxItems: limits.smallArray,
        description: 'The groups above the repository, outermost first (GitLab namespace, Bitbucket workspace, Azure collection and project)',
      }),
    ),
    additional_info: Nullable(JsonObject('Provider-specific facts (the Bitbucket project key, ...)')),
  },
  { $id: 'RepoInfo', description: 'Source repository information', maxProperties: 32 },
);
export type RepoInfo = Static<typeof RepoInfo>;

export const ExternalUrls = Type.Record(
  Type.String({ pattern: '^[^=.]+$', maxLength: limits.shortText }),
  Type.Union([Url(), Type.Object({ href: Url(), fingerprint: Nullable(Sha256Hex) }, { additionalProperties: false })]),
  { $id: 'ExternalUrls', maxProperties: limits.objectKeys, description: 'Named links, each a URL or {href, fingerprint}' },
);

/** Free-form user data: an object or an array, as the reference API allows. */
export const UserData = Type.Union(
  [
    Type.Record(Type.String({ maxLength: limits.shortText }), Type.Unknown(), { maxProperties: limits.objectKeys }),
    Type.Array(Type.Unknown(), { maxItems: limits.smallArray }),
  ],
  { $id: 'UserData', description: 'Free-form user data (JSON object or array)' },
);

export const JunitResult = Type.Object(
  {
    name: ShortText({ description: 'Test suite name' }),
    failures: Type.Integer({ minimum: 0 }),
    errors: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0 }),
    duration: Type.Number({ minimum: 0, description: 'Seconds; fractions allowed' }),
    timestamp: Nullable(EpochSeconds({ description: 'Suite start, Unix epoch seconds' })),
  },
  { $id: 'JunitResult', additionalProperties: false },
);
export type JunitResult = Static<typeof JunitResult>;

/** Who stored a piece of evidence: the API token (there are no users here), or null for evidence stored before the server recorded it. */
export const CreatedBy = Type.Union([
  Type.String({
    description:
      'The API token that stored it: its description and id ("CI backend (token 3fA9...)"), or "token <id>" when it has no description. ' +
      'null for evidence stored before the server recorded it.',
  }),
  Type.Null(),
]);

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Messages by field' })),
  },
  { $id: 'Error', description: 'Every error answer: a message, and per-field messages for invalid input' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const HalLink = Type.Union([Type.Object({ href: Type.String() }), Type.Null()]);
export const PageLinks = Type.Object(
  { self: HalLink, first: HalLink, prev: HalLink, next: HalLink, last: HalLink },
  { $id: 'PageLinks', description: 'Links that reproduce the query for this and neighbouring pages', additionalProperties: false },
);

/** All shared schemas, registered once by `$id`. */
export const sharedSchemas: TSchema[] = [GitCommitInfo, RepoInfo, ExternalUrls, UserData, JunitResult, ErrorBody, PageLinks];

/** The last page a list may be asked for. */
const maxPage = 1_000_000;

/**
 * The `page` and `per_page` query parameters of a list (pages count from 1): `perPage` is its
 * page size's smallest, largest and default value, which differ between the reference's lists.
 */
export const pageQuery = (perPage: { minimum: number; maximum: number; default: number }) => ({
  page: Type.Integer({ minimum: 1, maximum: maxPage, default: 1 }),
  per_page: Type.Integer(perPage),
});

/**
 * `pageQuery` without defaults, for a list whose handler tells a parameter not sent from one sent
 * (list environments answers every environment when neither is sent).
 */
export const optionalPageQuery = (perPage: { minimum: number; maximum: number; default: number }) => ({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, description: 'Page number; 1 when only per_page is sent' })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: perPage.minimum,
      maximum: perPage.maximum,
      description: `Page size; ${perPage.default} when only page is sent`,
    }),
  ),
});

/** Fields of the paginated envelope; the list itself sits beside them under its own key. */
export const pageFields = {
  page: Type.Integer({ minimum: 1 }),
  per_page: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
  total_count: Type.Integer({ minimum: 0 }),
  _links: Type.Ref(PageLinks),
};
