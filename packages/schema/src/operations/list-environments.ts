import { Type, type TSchema } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { EpochSeconds, ErrorBody, JsonObject, Literals, optionalPageQuery, pageFields, PathName, ShortText } from '../shared.ts';

export const environmentTypes = ['K8S', 'ECS', 'S3', 'lambda', 'server', 'docker', 'azure-apps', 'cloud-run', 'logical'] as const;
export const EnvironmentType = Literals(environmentTypes, { $id: 'EnvironmentType', description: 'Kind of runtime the environment reports from' });

export const Environment = Type.Object(
  {
    org: Type.String(),
    name: Type.String(),
    type: Type.Ref(EnvironmentType),
    description: Type.String(),
    last_modified_at: EpochSeconds({ description: 'When the environment itself was created or changed' }),
    include_scaling: Type.Boolean(),
    tags: JsonObject('User-defined tags'),
    last_reported_at: EpochSeconds({ description: 'Last snapshot report received; 0 before the first' }),
    last_changed_at: EpochSeconds({ description: 'Last report that changed what runs; 0 before the first' }),
    state: Type.Boolean({
      description: 'true: every running artifact has a compliant trail; false: one does not, or nothing has been reported yet',
    }),
    policies: Type.Array(Type.String()),
    included_environments: Type.Array(Type.String()),
  },
  { $id: 'Environment', additionalProperties: false },
);

/**
 * Most environments one answer holds when neither `page` nor `per_page` is sent (the Kosli CLI
 * sends neither and expects every environment); beyond it, the answer holds the first ones and
 * `total_count` says how many there are.
 */
export const maxUnpagedEnvironments = 1_000;

/** Page size when only `page` is sent. */
export const defaultEnvironmentsPerPage = 20;

const repeatable = <T extends TSchema>(item: T, description: string) => Type.Optional(Type.Array(item, { maxItems: limits.smallArray, description }));

/** GET /environments/{org} */
export const listEnvironments = defineOperation({
  id: 'listEnvironments',
  summary: 'List environments',
  description:
    'A filtered, sorted, paginated list of the environments of an organisation. With neither page nor per_page, every ' +
    `environment (up to ${maxUnpagedEnvironments}) on one page: page 1, total_pages 1, per_page the number returned.`,
  tags: ['Environments'],
  method: 'GET',
  path: paths.listEnvironments,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    ...optionalPageQuery({ minimum: 1, maximum: 50, default: defaultEnvironmentsPerPage }),
    sort: Literals(['name', 'last_modified_at', 'last_changed_at'], { default: 'name' }),
    sort_direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' }),
    space_id: repeatable(ShortText({ minLength: 1 }), 'Space IDs; repeated values combine with OR'),
    name: Type.Optional(ShortText({ description: 'Case-insensitive substring of the name' })),
    type: repeatable(Type.Ref(EnvironmentType), 'Environment types; repeated values combine with OR'),
    tag: repeatable(ShortText({ minLength: 1, pattern: '^[^:]' }), 'Tag key, or key:value (the key is not empty); repeated values combine with OR'),
  }),
  body: undefined,
  responses: {
    200: {
      description: 'A page of environments',
      schema: Type.Object({ ...pageFields, environments: Type.Array(Type.Ref(Environment)) }, { $id: 'EnvironmentPage', additionalProperties: false }),
    },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
  },
  schemas: [EnvironmentType, Environment],
});
