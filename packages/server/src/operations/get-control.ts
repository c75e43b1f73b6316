import { getControl } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { controlView, policiesByControl } from './control-view.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /controls/{org}/{identifier}: `kosli get control`. */
export const getControlPlugin = definePlugin({
  operation: getControl,
  store: [...requireOrganizationUses, 'findControl', 'findPolicies'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const [control, policies] = await Promise.all([store.findControl(organization.id, params.identifier), store.findPolicies(organization.id)]);
    if (!control) throw notFound(`Control '${params.identifier}' does not exist in organization '${params.org}'`);
    return { status: 200, body: controlView(control, policiesByControl(policies)) };
  },
});
