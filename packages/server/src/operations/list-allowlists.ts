import { listAllowlists } from '@trailproof/schema';
import { createdByName } from '../domain/created-by.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /allowlists/{org}: every allowance, oldest first, with who made it (Kosli's `AllowlistResponse`). */
export const listAllowlistsPlugin = definePlugin({
  operation: listAllowlists,
  store: [...requireOrganizationUses, 'listAllowlistEntries'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const entries = await store.listAllowlistEntries(organization.id);
    const body = entries.map(({ createdBy, ...entry }) => ({ ...entry, user_name: createdByName(createdBy) ?? '' }));
    return { status: 200, body };
  },
});
