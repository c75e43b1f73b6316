import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody } from '../shared.ts';
import { LogParams } from './log.ts';

/** GET /log/{org}/checkpoint: our extension (issue 34). */
export const getLogCheckpoint = defineOperation({
  id: 'getLogCheckpoint',
  summary: 'The latest signed checkpoint',
  description:
    "The latest checkpoint of the organisation's log as the text of its C2SP signed note (tlog-checkpoint: origin, tree size, base64 root hash; a blank line; the signature line). Our extension.",
  tags: ['Transparency log'],
  method: 'GET',
  path: paths.getLogCheckpoint,
  access: 'read',
  params: LogParams,
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The signed note', schema: Type.String(), contentType: 'text/plain; charset=utf-8' },
    404: { description: 'Organisation not found, or nothing logged yet', schema: Type.Ref(ErrorBody) },
  },
});
