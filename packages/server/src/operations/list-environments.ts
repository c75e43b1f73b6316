import { defaultEnvironmentsPerPage, listEnvironments, maxUnpagedEnvironments } from '@trailproof/schema';
import { pageBody, pageCount, pageLinks } from '../http/links.ts';
import { environmentItemsJson } from '../http/views/environments.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * GET /environments/{org}. With neither `page` nor `per_page` (what the Kosli CLI sends, expecting
 * every environment) the answer is one page of all of them, up to `maxUnpagedEnvironments`.
 */
export const listEnvironmentsPlugin = definePlugin({
  operation: listEnvironments,
  store: [...requireOrganizationUses, 'listEnvironments'],
  async handler({ params, query, store, originalUrl }) {
    const organization = await requireOrganization(store, params.org);
    const unpaged = query.page === undefined && query.per_page === undefined;
    const page = query.page ?? 1;
    const perPage = unpaged ? maxUnpagedEnvironments : (query.per_page ?? defaultEnvironmentsPerPage);
    const { rows, total } = await store.listEnvironments(organization.id, {
      names: query.name,
      spaceIds: query.space_id,
      types: query.type,
      tags: query.tag,
      sort: query.sort,
      direction: query.sort_direction,
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    const itemsJson = environmentItemsJson(rows, organization.name);
    if (unpaged) {
      // One page holds them all (none when nothing matches); past the maximum, total_count still says how many there are.
      const totalPages = pageCount(total, maxUnpagedEnvironments);
      const figures = { page: 1, per_page: Math.min(total, maxUnpagedEnvironments), total_pages: totalPages, total_count: total };
      return { status: 200, json: pageBody(figures, 'environments', itemsJson, pageLinks(originalUrl, 1, Math.min(totalPages, 1))) };
    }
    const totalPages = pageCount(total, perPage);
    const figures = { page, per_page: perPage, total_pages: totalPages, total_count: total };
    return { status: 200, json: pageBody(figures, 'environments', itemsJson, pageLinks(originalUrl, page, totalPages)) };
  },
});
