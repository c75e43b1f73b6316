import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PageLinks, pageQuery, PathName } from '../shared.ts';
import { TrailSummary, trailSchemas } from './trail.ts';

/** A page of trails with where it sits, for the flow's list and the organisation's. */
export const TrailPage = Type.Object(
  {
    data: Type.Array(Type.Ref(TrailSummary)),
    pagination: Type.Object(
      {
        total: Type.Integer({ minimum: 0 }),
        page: Type.Integer({ minimum: 1 }),
        per_page: Type.Integer({ minimum: 1 }),
        page_count: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    _links: Type.Ref(PageLinks),
  },
  { $id: 'TrailPage', additionalProperties: false },
);

/** GET /trails/{org}/{flow_name} */
export const listTrails = defineOperation({
  id: 'listTrails',
  summary: 'List trails',
  description: 'The trails of a flow, newest first, each with its compliance status (attestations are left out; get the trail for them).',
  tags: ['Trails'],
  method: 'GET',
  path: paths.listTrails,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name') }),
  query: Type.Object({
    ...pageQuery({ minimum: 1, maximum: 100, default: 20 }),
  }),
  body: undefined,
  responses: {
    200: {
      description: 'A page of trails',
      schema: TrailPage,
    },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: trailSchemas,
});
