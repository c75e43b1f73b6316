import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, pageQuery } from '../shared.ts';
import { TrailPathParams } from './attestation-input.ts';
import { Trail, trailSchemas } from './trail.ts';

/** GET /trails/{org}/{flow_name}/{trail_name} */
export const getTrail = defineOperation({
  id: 'getTrail',
  summary: 'Get trail',
  description:
    'One trail: its git and repo info, its compliance status with the reasons (from every attestation stored on it), and a page ' +
    'of its attestations, oldest first (with JUnit results, totals and attachment): `attestations_pagination` says how many ' +
    "there are and links to the other pages. A page holds at most 20, and stops early once its attestations' data would pass " +
    '4 MiB (one attestation at least), so that an answer stays near 4 MiB however big the data; `next_offset` and ' +
    "`_links.next` say where to continue. `events` tell the trail's begin, its artifacts and its attestations, as Kosli's do.",
  tags: ['Trails'],
  method: 'GET',
  path: paths.getTrail,
  access: 'read',
  params: TrailPathParams,
  query: Type.Object({
    ...pageQuery({ minimum: 1, maximum: 20, default: 20 }),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Start the page at this attestation (0: the oldest) instead of at `page`' }),
    ),
  }),
  body: undefined,
  responses: {
    200: { description: 'The trail', schema: Type.Ref(Trail) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow or trail not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: trailSchemas,
});
