import { tagResource } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** PATCH /tags/{org}/{flow|environment}/{name}: sets, then removes (a key in both is removed). */
export const tagResourcePlugin = definePlugin({
  operation: tagResource,
  store: requireOrganizationUses,
  transaction: ['changeFlowTags', 'changeEnvironmentTags'],
  async handler({ params, data, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const change = { set: data.set_tags ?? {}, remove: data.remove_tags ?? [] };
    const flow = params.resource_type.startsWith('flow');
    const changed = await store.transaction((tx) =>
      flow
        ? tx.changeFlowTags(organization.id, params.resource_name, change, now)
        : tx.changeEnvironmentTags(organization.id, params.resource_name, change, now),
    );
    const what = flow ? 'Flow' : 'Environment';
    if (!changed) throw notFound(`${what} '${params.resource_name}' not found in organization '${params.org}'`);
    return { status: 200, body: `${what} '${params.resource_name}' tags were changed` };
  },
});
