import { listLogCheckpoints } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /log/{org}/checkpoints: every kept checkpoint, newest first, a page at a time. */
export const listLogCheckpointsPlugin = definePlugin({
  operation: listLogCheckpoints,
  store: [...requireOrganizationUses, 'listCheckpoints'],
  async handler({ params, query, store }) {
    const organization = await requireOrganization(store, params.org);
    const checkpoints = await store.listCheckpoints(organization.id, (query.page - 1) * query.per_page, query.per_page);
    return {
      status: 200,
      body: checkpoints.map((c) => ({ tree_size: c.treeSize, root_hash: c.rootHash.toString('base64'), created_at: c.createdAt, checkpoint: c.note })),
    };
  },
});
