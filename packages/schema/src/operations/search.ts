import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, Literals, PathName } from '../shared.ts';
import { ArtifactEvent, artifactSchemas, artifactStates, hexPrefix } from './artifact.ts';

const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const matches = (kind: 'fingerprint' | 'commit') =>
  Type.Object(
    {
      type: Type.Literal(kind),
      count: Type.Integer({ minimum: 0 }),
      matches: Type.Array(Type.String(), { description: `The ${kind}s that start with the value (at most 100)` }),
    },
    { additionalProperties: false },
  );

/** What a search value resolved to, as `kosli search` reads it (`ResolvedToBody`). */
export const SearchResolved = Type.Object(
  {
    type: Literals(['fingerprint', 'commit', 'multiple']),
    full_match: Type.String({ description: 'The one fingerprint or commit found; the first of them when several were' }),
    fingerprints: matches('fingerprint'),
    commits: matches('commit'),
  },
  { $id: 'SearchResolved', additionalProperties: false },
);

/** One artifact found (`SearchArtifact`): a report of it, or a fingerprint only seen running (no provenance). */
export const SearchArtifact = Type.Object(
  {
    fingerprint: Type.String(),
    name: Type.String(),
    has_provenance: Type.Boolean({ description: 'false for a fingerprint seen in environments but never reported to a flow' }),
    git_commit: Type.String(),
    pipeline: Type.String({ description: 'The flow, under its legacy name' }),
    flow: Type.String(),
    trail: Type.String(),
    template_reference_name: OrNull(Type.String()),
    build_url: Type.String(),
    commit_url: Type.String(),
    html_url: Type.String(),
    api_url: Type.String(),
    compliance_state: Type.Union([Literals(artifactStates), Type.Literal('')]),
    running_in: Type.Array(Type.String(), { description: 'Environments whose latest snapshot has it' }),
    exited_from: Type.Array(Type.String(), { description: 'Environments it ran in and no longer does' }),
    history: Type.Array(Type.Ref(ArtifactEvent)),
  },
  { $id: 'SearchArtifact', additionalProperties: false },
);

/** GET /search/{org}/sha/{search_value} */
export const search = defineOperation({
  id: 'search',
  summary: 'Search by commit or fingerprint',
  description:
    "The organisation's artifacts whose fingerprint or commit is the value or starts with it (at least 7 characters), as `kosli search` " +
    'reads them: each report with where it runs and ran, and fingerprints only seen running, without provenance. At most 100.',
  tags: ['Artifacts'],
  method: 'GET',
  path: paths.search,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), search_value: hexPrefix(64, 'A commit SHA or a fingerprint, or a prefix of one, lower-case hex') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: {
      description: 'What the value resolved to and the artifacts found',
      schema: Type.Object(
        { resolved_to: Type.Ref(SearchResolved), artifacts: Type.Array(Type.Ref(SearchArtifact)) },
        { $id: 'SearchResult', additionalProperties: false },
      ),
    },
    400: { description: 'Not hex, or shorter than 7 characters', schema: Type.Ref(ErrorBody) },
    404: { description: 'No matches', schema: Type.Ref(ErrorBody) },
  },
  schemas: [...artifactSchemas, SearchResolved, SearchArtifact],
});
