import { getLogInclusionProof } from '@trailproof/schema';
import { badRequest } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { encodeProof, leafHash } from '../transparency/index.ts';
import { requireLog, withinLog, requireLogUses } from './log-lookup.ts';

/** GET /log/{org}/proof/inclusion?index=N&tree_size=M: the leaf and its RFC 9162 audit path. */
export const getLogInclusionProofPlugin = definePlugin({
  operation: getLogInclusionProof,
  store: [...requireLogUses, 'inclusionProofOf', 'logLeaves'],
  async handler({ params, query, store }) {
    const { organization, size } = await requireLog(store, params.org, { leaves: true });
    withinLog('tree_size', query.tree_size, size);
    if (query.index >= query.tree_size)
      throw badRequest(`index ${query.index} is not below tree_size ${query.tree_size}`, { 'query.index': `must be below tree_size (${query.tree_size})` });
    const [proof, [leaf]] = await Promise.all([
      store.inclusionProofOf(organization.id, query.index, query.tree_size),
      store.logLeaves(organization.id, query.index, 1),
    ]);
    const bytes = Buffer.from(leaf!.leaf, 'utf8');
    return {
      status: 200,
      body: { index: query.index, tree_size: query.tree_size, leaf: leaf!.leaf, leaf_hash: leafHash(bytes).toString('base64'), proof: encodeProof(proof) },
    };
  },
});
