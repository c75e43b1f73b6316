import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, pageQuery, PathName } from '../shared.ts';
import { Sha256Pattern } from '../patterns.ts';
import { trailSchemas } from './trail.ts';
import { TrailPage } from './list-trails.ts';

/** GET /trails/{org} */
export const listOrganizationTrails = defineOperation({
  id: 'listOrganizationTrails',
  summary: 'List trails of an organisation',
  description:
    'The trails of every flow of the organisation, newest first, as `kosli list trails` asks for them; `flow`, `fingerprint` and ' +
    '`flow_tag` narrow the list, all of them together when several are given.',
  tags: ['Trails'],
  method: 'GET',
  path: paths.listOrganizationTrails,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    flow: Type.Optional(PathName('Only the trails of this flow')),
    fingerprint: Type.Optional(
      Type.String({ pattern: Sha256Pattern, maxLength: 64, description: 'Only trails with an attestation of the artifact with this SHA-256 fingerprint' }),
    ),
    flow_tag: Type.Optional(
      Type.String({
        maxLength: limits.name,
        pattern: '^[^=]+=',
        description: 'Only trails of flows with this tag (key=value, set by PATCH /tags)',
      }),
    ),
    ...pageQuery({ minimum: 1, maximum: 100, default: 20 }),
  }),
  body: undefined,
  responses: {
    200: { description: 'A page of trails', schema: TrailPage },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: trailSchemas,
});
