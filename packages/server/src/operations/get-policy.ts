import { getPolicy } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /policies/{org}/{policy_name}: the policy, its versions oldest first, the environments using it. */
export const getPolicyPlugin = definePlugin({
  operation: getPolicy,
  store: [...requireOrganizationUses, 'findPolicies'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const [policy] = await store.findPolicies(organization.id, [params.policy_name]);
    // The message the Kosli CLI's own tests expect (getPolicy_test.go).
    if (!policy) throw notFound(`Policy '${params.policy_name}' does not exist in organization '${params.org}'`);
    return { status: 200, body: policy };
  },
});
