import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody } from '../shared.ts';
import { LogParams } from './log.ts';

/** GET /log/{org}/key: our extension (issue 34). */
export const getLogKey = defineOperation({
  id: 'getLogKey',
  summary: "The log's verifier key",
  description:
    "The key that signs the organisation's checkpoints, in Go's note format (name+hash+base64), and the log's origin, the first line of its checkpoints. Our extension.",
  tags: ['Transparency log'],
  method: 'GET',
  path: paths.getLogKey,
  access: 'read',
  params: LogParams,
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: {
      description: 'The verifier key and origin',
      schema: Type.Object(
        {
          origin: Type.String({ description: "The log's origin: host/organisation" }),
          verifier_key: Type.String({ description: 'Verifier key: name+hash+base64(0x01 ‖ Ed25519 public key)' }),
        },
        { additionalProperties: false },
      ),
    },
    404: { description: 'Organisation not found', schema: Type.Ref(ErrorBody) },
  },
});
