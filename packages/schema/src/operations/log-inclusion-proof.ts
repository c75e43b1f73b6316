import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { Base64Hash, LogParams, logErrors, Proof, TreeCount } from './log.ts';

/** GET /log/{org}/proof/inclusion: our extension (issue 34). */
export const getLogInclusionProof = defineOperation({
  id: 'getLogInclusionProof',
  summary: 'Inclusion proof of a leaf',
  description:
    "The RFC 9162 inclusion proof (audit path) of leaf `index` in the organisation's tree of `tree_size` leaves (a checkpoint's size), with the leaf itself: the chain record's text, whose UTF-8 bytes are the leaf. Evidence shows its `log_index`. Our extension.",
  tags: ['Transparency log'],
  method: 'GET',
  path: paths.getLogInclusionProof,
  access: 'read',
  params: LogParams,
  query: Type.Object({
    index: TreeCount("The leaf index (the evidence's log_index)"),
    tree_size: TreeCount("The size of the tree to prove inclusion in: at most the log's size", 1),
  }),
  body: undefined,
  responses: {
    200: {
      description: 'The leaf and its proof',
      schema: Type.Object(
        {
          index: TreeCount('The leaf index'),
          tree_size: TreeCount('The tree size'),
          leaf: Type.String({ description: 'The leaf: the chain record (canonical JSON); its UTF-8 bytes are hashed as SHA-256(0x00 ‖ leaf)' }),
          leaf_hash: Base64Hash,
          proof: Proof,
        },
        { additionalProperties: false },
      ),
    },
    ...logErrors,
  },
});
