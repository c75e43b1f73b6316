import { PassThrough } from 'node:stream';
import { exportLog } from '@trailproof/schema';
import { exportPackage, exportPackageUses } from '../audit/export-package.ts';
import { storeAuditLog, storeAuditLogUses } from '../audit/store-log.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireSelection, requireSelectionUses } from '../audit/export-selection.ts';
import { requireLog, requireLogUses } from './log-lookup.ts';

/**
 * GET /log/{org}/export: the audit package, written while it is sent (the store read a page of
 * leaves at a time), so its size costs no memory. A failure midway ends the response early: the
 * gzip stream is cut, and the package does not verify.
 */
export const exportLogPlugin = definePlugin({
  operation: exportLog,
  store: [...requireLogUses, ...requireSelectionUses, ...storeAuditLogUses, ...exportPackageUses],
  async handler({ params, query, store, apiBase, now }) {
    if (query.trail !== undefined && query.flow === undefined)
      throw badRequest('trail needs flow', { 'query.trail': 'needs flow: a trail is named within its flow' });
    if (query.since !== undefined && query.until !== undefined && query.since > query.until)
      throw badRequest('since is after until', { 'query.since': 'must be at most until' });
    const { organization, signing } = await requireLog(store, params.org);
    const selection = { flow: query.flow, trail: query.trail, since: query.since, until: query.until };
    await requireSelection(store, params.org, organization.id, selection);
    const log = await storeAuditLog(store, organization.id, signing.signer.verifierKey);
    if (!log) throw notFound(`The log of '${params.org}' has no signed checkpoint yet: try again in a second`);
    const stream = new PassThrough();
    exportPackage(store, log, stream, {
      organization: params.org,
      organizationId: organization.id,
      selection: JSON.parse(JSON.stringify(selection)),
      apiBase,
      now,
    }).catch((error: Error) => stream.destroy(error));
    return {
      status: 200,
      stream,
      contentType: 'application/gzip',
      headers: { 'Content-Disposition': `attachment; filename="${params.org}-audit.tar.gz"`, 'Cache-Control': 'no-store' },
    };
  },
});
