import { listPolicies } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /policies/{org}: every policy of the organisation by name (an organisation keeps a few). */
export const listPoliciesPlugin = definePlugin({
  operation: listPolicies,
  store: [...requireOrganizationUses, 'findPolicies'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    return { status: 200, body: await store.findPolicies(organization.id) };
  },
});
