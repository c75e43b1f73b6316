import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';

/** GET /trails/{org}/{flow_name}/{trail_name}/attestations/{attestation_id}/attachment */
export const downloadAttachment = defineOperation({
  id: 'downloadAttachment',
  summary: 'Download an attestation attachment',
  description: 'The attachment bytes exactly as uploaded. `X-Content-SHA256` carries their SHA-256 in hex, `Repr-Digest` the same in RFC 9530 form.',
  tags: ['Trails'],
  method: 'GET',
  path: paths.downloadAttachment,
  access: 'read',
  params: Type.Object({
    org: PathName('Organisation'),
    flow_name: PathName('Flow name'),
    trail_name: PathName('Trail name'),
    attestation_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The attachment', schema: Type.String({ contentMediaType: 'application/octet-stream' }), contentType: 'application/octet-stream' },
    404: { description: 'Trail, attestation or attachment not found', schema: Type.Ref(ErrorBody) },
  },
});
