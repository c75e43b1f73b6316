import { exportLog } from '@trailproof/schema';
import { selectionPackage, selectionPackageUses } from '../audit/selection-package.ts';
import { badRequest } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireLog, requireLogUses } from './log-lookup.ts';

/**
 * GET /log/{org}/export: the audit package, written while it is sent (the store read a page of
 * leaves at a time), so its size costs no memory. A failure midway ends the response early: the
 * gzip stream is cut, and the package does not verify.
 */
export const exportLogPlugin = definePlugin({
  operation: exportLog,
  store: [...requireLogUses, ...selectionPackageUses],
  async handler({ params, query, store, apiBase, now }) {
    if (query.trail !== undefined && query.flow === undefined)
      throw badRequest('trail needs flow', { 'query.trail': 'needs flow: a trail is named within its flow' });
    if (query.since !== undefined && query.until !== undefined && query.since > query.until)
      throw badRequest('since is after until', { 'query.since': 'must be at most until' });
    const { organization, signing } = await requireLog(store, params.org);
    const selection = { flow: query.flow, trail: query.trail, since: query.since, until: query.until };
    const stream = await selectionPackage(store, signing.signer.verifierKey, {
      organization: params.org,
      organizationId: organization.id,
      selection,
      apiBase,
      now,
    });
    return {
      status: 200,
      stream,
      contentType: 'application/gzip',
      headers: { 'Content-Disposition': `attachment; filename="${params.org}-audit.tar.gz"`, 'Cache-Control': 'no-store' },
    };
  },
});
