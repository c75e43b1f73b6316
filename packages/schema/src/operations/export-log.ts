import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { EpochSeconds, ErrorBody, PathName } from '../shared.ts';

/** GET /log/{org}/export: the audit package (issue 34), streamed. */
export const exportLog = defineOperation({
  id: 'exportLog',
  summary: 'Export an audit package',
  description: [
    'A gzip tar of the selected evidence (trails, attestations with their attachments byte for byte, snapshots and the deployments they made,',
    "approvals and reviews, as the API shows them), the leaves of the organisation's log that vouch for it, an inclusion proof of each leaf against",
    'the latest signed checkpoint, the checkpoint, the verifier key and a README; with a selection, every leaf of the log (`leaves/`), so that the',
    'package proves it holds every leaf the selection picks. `trailproof verify-package` checks it offline.',
    'Sent as it is written (chunked): a failure midway ends the response early, and the package does not verify.',
    'With `flow`, snapshots are left out (environments belong to no flow); with `trail` (which needs `flow`), approvals and reviews too.',
  ].join(' '),
  tags: ['Transparency log'],
  method: 'GET',
  path: paths.exportLog,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    flow: Type.Optional(PathName('Only the evidence of this flow')),
    trail: Type.Optional(PathName('Only this trail of the flow (needs flow)')),
    since: Type.Optional(EpochSeconds({ description: 'Only evidence stored at or after this time (epoch seconds)' })),
    until: Type.Optional(EpochSeconds({ description: 'Only evidence stored at or before this time (epoch seconds)' })),
  }),
  body: undefined,
  responses: {
    200: { description: 'The audit package', schema: Type.String({ contentMediaType: 'application/gzip' }), contentType: 'application/gzip' },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: {
      description: 'Organisation, flow or trail unknown (`errors` names `query.flow` or `query.trail`), or its log has no checkpoint yet',
      schema: Type.Ref(ErrorBody),
    },
  },
});
