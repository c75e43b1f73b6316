import { createControl } from '@trailproof/schema';
import { ApiError } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { controlView, policiesByControl } from './control-view.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** POST /controls/{org}: `kosli create control`; 409 for an identifier taken (the CLI does not retry it). */
export const createControlPlugin = definePlugin({
  operation: createControl,
  store: [...requireOrganizationUses, 'findControl', 'findPolicies'],
  transaction: ['insertControl'],
  async handler({ params, data, principal, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const input = { organizationId: organization.id, identifier: data.identifier, name: data.name, description: data.description ?? null };
    const created = await store.transaction((tx) => tx.insertControl({ ...input, createdBy: principal.tokenId, at: now }));
    if (!created) throw new ApiError(409, `Control '${data.identifier}' already exists in organization '${params.org}'`);
    const [control, policies] = await Promise.all([store.findControl(organization.id, data.identifier), store.findPolicies(organization.id)]);
    return { status: 201, body: controlView(control!, policiesByControl(policies)) };
  },
});
