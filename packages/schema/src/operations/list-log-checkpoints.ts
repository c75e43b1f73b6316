import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, pageQuery } from '../shared.ts';
import { LogCheckpoint, LogParams } from './log.ts';

/** GET /log/{org}/checkpoints: our extension (issue 34). */
export const listLogCheckpoints = defineOperation({
  id: 'listLogCheckpoints',
  summary: 'List signed checkpoints',
  description: "Every checkpoint the server signed of the organisation's log, newest first: each one is kept. Our extension.",
  tags: ['Transparency log'],
  method: 'GET',
  path: paths.listLogCheckpoints,
  access: 'read',
  params: LogParams,
  query: Type.Object({ ...pageQuery({ minimum: 1, maximum: 100, default: 20 }) }),
  body: undefined,
  responses: {
    200: { description: 'A page of checkpoints', schema: Type.Array(Type.Ref(LogCheckpoint)) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Organisation not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [LogCheckpoint],
});
