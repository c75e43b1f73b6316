/**
 * The log's signed checkpoint and the audit package (of the organisation, a flow, a trail or a
 * date range), downloaded through the console's session: the API's endpoints
 * (`GET /log/{org}/checkpoint`, `GET /log/{org}/export`) take a token a browser does not hold.
 */
import { createHash } from 'node:crypto';
import { selectionPackage } from '../../audit/selection-package.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { orgHref } from '../links.ts';
import { definePage } from '../page.ts';
import { queryTime } from './deployments.tsx';

/** The page that downloads the audit package of what `selection` names (the whole organisation when empty). */
export function auditPackageHref(at: Parameters<typeof orgHref>[0], selection: { flow?: string; trail?: string; since?: string; until?: string }): string {
  const query = new URLSearchParams(Object.entries(selection).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  return `${orgHref(at, 'log', 'audit-package')}${query.size ? `?${query}` : ''}`;
}

export const checkpointDownload = definePage({
  path: '/:org/log/checkpoint',
  async render({ store, org }) {
    const checkpoint = await store.latestCheckpoint(org.id);
    if (!checkpoint) throw notFound(`The log of ${org.name} has no checkpoint yet: one is signed once evidence is stored.`);
    const bytes = Buffer.from(checkpoint.note, 'utf8');
    return { download: { bytes, name: `${org.name}-checkpoint.txt`, sha256: createHash('sha256').update(bytes).digest('hex') } };
  },
});

export const auditPackageDownload = definePage({
  path: '/:org/log/audit-package',
  async render({ store, org, query, now, apiBase }) {
    const text = (name: string) => query.get(name) || undefined;
    const since = queryTime(query.get('since'));
    const until = queryTime(query.get('until'));
    if (text('trail') !== undefined && text('flow') === undefined) throw new ApiError(400, 'A trail is named within its flow: give the flow too.');
    if (since !== undefined && until !== undefined && since > until) throw new ApiError(400, 'The range starts after it ends.');
    const selection = { flow: text('flow'), trail: text('trail'), since, until };
    if (!store.logSigning) throw new ApiError(503, 'This server does not sign its log');
    const stream = await selectionPackage(store, store.logSigning.signer.verifierKey, {
      organization: org.name,
      organizationId: org.id,
      selection,
      apiBase,
      now,
    });
    const name = [org.name, selection.flow, selection.trail].filter(Boolean).join('-');
    return { file: { stream, name: `${name}-audit.tar.gz`, contentType: 'application/gzip' } };
  },
});
