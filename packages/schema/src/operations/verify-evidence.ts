import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';

export const VerifyResult = Type.Object(
  {
    org: Type.String(),
    ok: Type.Boolean({ description: 'true when every link and every row it vouches for is intact' }),
    records: Type.Integer({ minimum: 0, description: 'Records checked (all of them when ok)' }),
    head: Type.String({ description: 'Hash of the last intact record: publish it elsewhere to pin the current state' }),
    first_broken: Type.Union([
      Type.Object(
        {
          seq: Type.Integer(),
          type: Type.String(),
          ref: Type.Union([Type.Object({ table: Type.String(), id: Type.Integer() }, { additionalProperties: false }), Type.Null()]),
          reason: Type.String(),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { $id: 'VerifyResult', additionalProperties: false },
);

/** GET /verify/{org}: our extension. */
export const verifyEvidence = defineOperation({
  id: 'verifyEvidence',
  summary: 'Verify the evidence hash chain',
  description:
    "Recomputes the organisation's hash chain (hash = SHA-256(previous hash ‖ canonical JSON of the record)) and every row and attachment it vouches for; reports the first broken link. Our extension.",
  tags: ['Evidence'],
  method: 'GET',
  path: paths.verifyEvidence,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The verification result (also when a link is broken: see `ok`)', schema: Type.Ref(VerifyResult) },
    404: { description: 'Organisation not found', schema: Type.Ref(ErrorBody) },
    429: {
      description:
        'A verification of this organisation is already running (one at a time per organisation and process, two per process): retry after `Retry-After` seconds',
      schema: Type.Ref(ErrorBody),
    },
  },
  schemas: [VerifyResult],
});
