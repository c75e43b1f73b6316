import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, LongText, Nullable, PathName, ShortText, pageQuery } from '../shared.ts';

/** A control's identifier as createControl.go documents it: a letter or digit first, then letters, digits, `.`, `-`, `_`, `~`. */
const ControlIdentifier = (description: string) => Type.String({ minLength: 1, maxLength: limits.name, pattern: '^[A-Za-z0-9][A-Za-z0-9._~-]*$', description });

/** What `kosli create control` sends (createControl.go `ControlPayload`). */
export const ControlInput = Type.Object(
  {
    identifier: ControlIdentifier('The control identifier (decisions and `for_control` rules name it)'),
    name: ShortText({ minLength: 1 }),
    description: Nullable(LongText()),
  },
  { $id: 'ControlInput', additionalProperties: false },
);

/** A control as getControl.go and listControls.go print it. */
export const Control = Type.Object(
  {
    identifier: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    version: Type.Integer(),
    archived: Type.Boolean(),
    created_by: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.Number(),
    tags: Type.Record(Type.String(), Type.String()),
    policies_referencing: Type.Array(Type.String(), { description: 'Policies with a `for_control` rule naming it (in their latest version)' }),
  },
  { $id: 'Control' },
);

/** POST /controls/{org} */
export const createControl = defineOperation({
  id: 'createControl',
  summary: 'Create control',
  description: 'Creates a control; 409 when the organisation has one with that identifier.',
  tags: ['Controls'],
  method: 'POST',
  path: paths.createControl,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: { kind: 'json', data: ControlInput },
  responses: {
    201: { description: 'Created', schema: Type.Ref(Control) },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    409: { description: 'A control with that identifier exists', schema: Type.Ref(ErrorBody) },
  },
  schemas: [ControlInput, Control],
});

/** GET /controls/{org}/{identifier} */
export const getControl = defineOperation({
  id: 'getControl',
  summary: 'Get control',
  description: 'A control by its identifier, with the policies that refer to it.',
  tags: ['Controls'],
  method: 'GET',
  path: paths.getControl,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), identifier: ControlIdentifier('Control identifier') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The control', schema: Type.Ref(Control) },
    404: { description: 'No such control', schema: Type.Ref(ErrorBody) },
  },
  schemas: [Control],
});

/** GET /controls/{org}, as `kosli list controls` asks for it. */
export const listControls = defineOperation({
  id: 'listControls',
  summary: 'List controls',
  description:
    'A page of controls by name. `search` matches part of the identifier or the name (any case); controls carry no tags here and none is ' +
    'archived, so a `tag` filter or `archived=true` lists none.',
  tags: ['Controls'],
  method: 'GET',
  path: paths.listControls,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    ...pageQuery({ minimum: 1, maximum: 100, default: 20 }),
    search: Type.Optional(ShortText()),
    tag: Type.Optional(Type.Union([ShortText(), Type.Array(ShortText(), { maxItems: limits.smallArray })])),
    archived: Type.Optional(Type.Boolean()),
    sort_direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  }),
  body: undefined,
  responses: {
    200: {
      description: 'A page of controls',
      schema: Type.Object({
        controls: Type.Array(Type.Ref(Control)),
        page: Type.Integer(),
        total_pages: Type.Integer(),
        total_count: Type.Integer(),
      }),
    },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
  },
  schemas: [Control],
});
