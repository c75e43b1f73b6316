import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, pageQuery, PathName } from '../shared.ts';
import { Flow, flowSchemas } from './flow.ts';

/** GET /flows/{org} */
export const listFlows = defineOperation({
  id: 'listFlows',
  summary: 'List flows',
  description:
    'The flows of an organisation, by name, a page at a time (an array, as the reference answers): the `Link` header links the ' +
    'other pages (RFC 8288: first, prev, next, last) and `X-Total-Count`, `X-Per-Page`, `X-Current-Page`, `X-Total-Pages` say where ' +
    'the page sits, as for environment events.',
  tags: ['Flows'],
  method: 'GET',
  path: paths.listFlows,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    search_by_name: Type.Optional(
      Type.String({
        maxLength: limits.name,
        pattern: '^[A-Za-z0-9-]*$',
        description: 'Flows whose name contains this text (letters, digits and -)',
      }),
    ),
    // Query values arrive as text and only numbers are coerced, so the boolean is spelt as two literals.
    case_sensitive: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'true', description: 'Whether search_by_name is case sensitive' }),
    ...pageQuery({ minimum: 1, maximum: 1000, default: 1000 }),
  }),
  body: undefined,
  responses: {
    200: { description: 'The flows', schema: Type.Array(Type.Ref(Flow)) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
  },
  schemas: flowSchemas,
});
