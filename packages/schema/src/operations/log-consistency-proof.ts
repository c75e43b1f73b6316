import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { LogParams, logErrors, Proof, TreeCount } from './log.ts';

/** GET /log/{org}/proof/consistency: our extension (issue 34). */
export const getLogConsistencyProof = defineOperation({
  id: 'getLogConsistencyProof',
  summary: 'Consistency proof between two tree sizes',
  description:
    "The RFC 9162 consistency proof that the organisation's tree of `to` leaves extends its tree of `from` leaves (two checkpoints' sizes): an auditor holding an older checkpoint checks that history was not rewritten. Empty when `from` is 0 or equals `to`. Our extension.",
  tags: ['Transparency log'],
  method: 'GET',
  path: paths.getLogConsistencyProof,
  access: 'read',
  params: LogParams,
  query: Type.Object({
    from: TreeCount('The older tree size'),
    to: TreeCount("The newer tree size: at least `from`, at most the log's size"),
  }),
  body: undefined,
  responses: {
    200: {
      description: 'The proof',
      schema: Type.Object({ from: TreeCount('The older tree size'), to: TreeCount('The newer tree size'), proof: Proof }, { additionalProperties: false }),
    },
    ...logErrors,
  },
});
