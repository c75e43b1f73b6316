import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { ErrorBody } from '../shared.ts';
import { TrailPathParams } from './attestation-input.ts';
import { Trail, trailSchemas } from './trail.ts';

/** GET /trails/{org}/{flow_name}/{trail_name} */
export const getTrail = defineOperation({
  id: 'getTrail',
  summary: 'Get trail',
  description:
    'One trail: its git and repo info, every attestation stored on it (with JUnit results, totals and attachment), and its ' +
    'compliance status with the reasons.',
  tags: ['Trails'],
  method: 'GET',
  path: '/trails/{org}/{flow_name}/{trail_name}',
  access: 'read',
  params: TrailPathParams,
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The trail', schema: Type.Ref(Trail) },
    404: { description: 'Flow or trail not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: trailSchemas,
});
