import { listDeployments } from '@trailproof/schema';
import { badRequest } from '../http/errors.ts';
import { pageBody, pageCount, pageLinks } from '../http/links.ts';
import { deploymentItemsJson } from '../http/views/deployments.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** The default window: 28 days before `end_ts`. */
export const defaultWindowSeconds = 28 * 24 * 60 * 60;

/** GET /deployments/{org}: newest first. */
export const listDeploymentsPlugin = definePlugin({
  operation: listDeployments,
  store: [...requireOrganizationUses, 'listDeployments'],
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const organization = await requireOrganization(store, params.org);
    const end = query.end_ts ?? now;
    const start = query.start_ts ?? end - defaultWindowSeconds;
    if (start > end) throw badRequest('Input payload validation failed', { 'query.start_ts': 'must not be after end_ts' });
    const { rows, total } = await store.listDeployments(organization.id, {
      // An empty filter (`?env_name=`) is no filter, as a null one is.
      start,
      end,
      envName: query.env_name || undefined,
      repoName: query.repo_name || undefined,
      offset: (query.page - 1) * query.per_page,
      limit: query.per_page,
    });
    const totalPages = pageCount(total, query.per_page);
    const figures = { page: query.page, per_page: query.per_page, total_pages: totalPages, total_count: total };
    return {
      status: 200,
      json: pageBody(figures, 'deployments', deploymentItemsJson(rows, { org: params.org, apiBase }), pageLinks(originalUrl, query.page, totalPages)),
    };
  },
});
