import { getLogCheckpoint } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /log/{org}/checkpoint: the latest signed checkpoint, as the note's text. */
export const getLogCheckpointPlugin = definePlugin({
  operation: getLogCheckpoint,
  store: [...requireOrganizationUses, 'latestCheckpoint'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const checkpoint = await store.latestCheckpoint(organization.id);
    if (!checkpoint) throw notFound(`The log of '${params.org}' has no checkpoint yet: it is made once evidence is stored`);
    return {
      status: 200,
      raw: Buffer.from(checkpoint.note, 'utf8'),
      contentType: 'text/plain; charset=utf-8',
      // A newer one may be signed any second.
      headers: { 'Cache-Control': 'no-cache' },
    };
  },
});
