import { getLogConsistencyProof } from '@trailproof/schema';
import { badRequest } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { encodeProof } from '../transparency/index.ts';
import { requireLog, withinLog, requireLogUses } from './log-lookup.ts';

/** GET /log/{org}/proof/consistency?from=A&to=B: the RFC 9162 proof that the tree of B leaves extends the tree of A. */
export const getLogConsistencyProofPlugin = definePlugin({
  operation: getLogConsistencyProof,
  store: [...requireLogUses, 'consistencyProofOf'],
  async handler({ params, query, store }) {
    const { organization, size } = await requireLog(store, params.org, { leaves: true });
    withinLog('to', query.to, size);
    if (query.from > query.to) throw badRequest(`from ${query.from} is above to ${query.to}`, { 'query.from': `must be at most to (${query.to})` });
    const proof = await store.consistencyProofOf(organization.id, query.from, query.to);
    return { status: 200, body: { from: query.from, to: query.to, proof: encodeProof(proof) } };
  },
});
