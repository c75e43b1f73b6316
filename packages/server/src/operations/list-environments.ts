import { listEnvironments } from '@trailproof/schema';
import { pageBody, pageCount, pageLinks } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/** GET /environments/{org} */
export const listEnvironmentsPlugin = definePlugin({
  operation: listEnvironments,
  async handler({ params, query, store, originalUrl }) {
    const organization = await requireOrganization(store, params.org);
    const { itemsJson, total } = await store.listEnvironments(organization.id, organization.name, {
      names: query.name, spaceIds: query.space_id, types: query.type as string[] | undefined, tags: query.tag,
      sort: query.sort as 'name' | 'last_modified_at' | 'last_changed_at', direction: query.sort_direction as 'asc' | 'desc',
      offset: (query.page - 1) * query.per_page, limit: query.per_page,
    });
    const totalPages = pageCount(total, query.per_page);
    const figures = { page: query.page, per_page: query.per_page, total_pages: totalPages, total_count: total };
    return { status: 200, json: pageBody(figures, 'environments', itemsJson, pageLinks(originalUrl, query.page, totalPages)) };
  },
});
