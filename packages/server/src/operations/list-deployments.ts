import { listDeployments } from '@trailproof/schema';
import { badRequest } from '../http/errors.ts';
import { pageCount, pageLinks } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import { pathOf, requireOrganization } from './lookup.ts';

/** The default window: 28 days before `end_ts`. */
export const defaultWindowSeconds = 28 * 24 * 60 * 60;

/** GET /deployments/{org}: newest first. */
export const listDeploymentsPlugin = definePlugin({
  operation: listDeployments,
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const organization = await requireOrganization(store, params.org);
    const end = query.end_ts ?? now;
    const start = query.start_ts ?? end - defaultWindowSeconds;
    if (start > end) throw badRequest('Input payload validation failed', { 'query.start_ts': 'must not be after end_ts' });
    const { items, total } = await store.listDeployments(organization.id, {
      // An empty filter (`?env_name=`) is no filter, as a null one is.
      start, end, envName: query.env_name || undefined, repoName: query.repo_name || undefined, offset: (query.page - 1) * query.per_page, limit: query.per_page,
    });
    const totalPages = pageCount(total, query.per_page);
    // A page holds few environments: each one's link is built once.
    const environments = new Map<string, string>();
    const environmentLink = (name: string) => environments.get(name) ?? environments.set(name, `${apiBase}/environments/${pathOf(params.org, name)}`).get(name)!;
    const deployments = items.map(({ trail, ...d }) => {
      const environment = environmentLink(d.env_name);
      return {
        ...d,
        _links: {
          environment: { href: environment },
          snapshot: { href: `${environment}/snapshots/${d.snapshot_index}` },
          ...(trail ? { trail: { href: `${apiBase}/trails/${pathOf(params.org, trail.flow, trail.trail)}` } } : {}),
        },
      };
    });
    return {
      status: 200,
      body: {
        page: query.page, per_page: query.per_page, total_pages: totalPages, total_count: total,
        deployments, _links: pageLinks(originalUrl, query.page, totalPages),
      },
    };
  },
});
