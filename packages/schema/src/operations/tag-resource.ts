import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, Nullable, PathName, ShortText } from '../shared.ts';

/** The resource types of `kosli tag` that Trailproof keeps tags on (controls and repos it does not have). */
export const taggedResourceTypes = ['flow', 'flows', 'env', 'environment', 'environments'] as const;

export const TagChanges = Type.Object(
  {
    set_tags: Nullable(Type.Record(ShortText({ minLength: 1 }), ShortText(), { maxProperties: limits.objectKeys, description: 'Tags to add or change' })),
    remove_tags: Nullable(Type.Array(ShortText({ minLength: 1 }), { maxItems: limits.objectKeys, description: 'Keys of tags to remove' })),
  },
  { $id: 'TagChanges', additionalProperties: false },
);

/** PATCH /tags/{org}/{resource_type}/{resource_name}, as `kosli tag` sends it. */
export const tagResource = defineOperation({
  id: 'tagResource',
  summary: 'Tag flow or environment',
  description: 'Sets and removes tags of a flow or an environment. A key both set and removed is removed.',
  tags: ['Tags'],
  method: 'PATCH',
  path: paths.tagResource,
  access: 'write',
  params: Type.Object({
    org: PathName('Organisation'),
    resource_type: Type.Union(
      taggedResourceTypes.map((t) => Type.Literal(t)),
      { description: 'flow or environment (as the CLI spells them)' },
    ),
    resource_name: PathName('Flow or environment name'),
  }),
  query: Type.Object({}),
  body: { kind: 'json', data: TagChanges },
  responses: {
    200: { description: 'Tags changed', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'No such flow or environment', schema: Type.Ref(ErrorBody) },
  },
  schemas: [TagChanges],
});
