import { verifyEvidence } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/** GET /verify/{org}: recomputes the organisation's hash chain and reports the first broken link. */
export const verifyEvidencePlugin = definePlugin({
  operation: verifyEvidence,
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const { firstBroken, ...result } = await store.verifyChain(organization.id, organization.name);
    return { status: 200, body: { ...result, first_broken: firstBroken } };
  },
});
