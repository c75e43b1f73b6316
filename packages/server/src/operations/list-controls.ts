import { listControls } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { controlView, policiesByControl } from './control-view.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * GET /controls/{org}: `kosli list controls` (`{controls, page, total_pages, total_count}`).
 * Controls carry no tags and none is archived here: a `tag` filter or `archived=true` lists none.
 */
export const listControlsPlugin = definePlugin({
  operation: listControls,
  store: [...requireOrganizationUses, 'listControls', 'findPolicies'],
  async handler({ params, query, store }) {
    const organization = await requireOrganization(store, params.org);
    const none = query.archived === true || query.tag !== undefined;
    const range = { search: query.search, descending: query.sort_direction === 'desc', offset: (query.page - 1) * query.per_page, limit: query.per_page };
    const [page, policies] = await Promise.all([
      none ? { total: 0, items: [] } : store.listControls(organization.id, range),
      store.findPolicies(organization.id),
    ]);
    const referencing = policiesByControl(policies);
    const body = {
      controls: page.items.map((c) => controlView(c, referencing)),
      page: query.page,
      total_pages: Math.ceil(page.total / query.per_page),
      total_count: page.total,
    };
    return { status: 200, body };
  },
});
