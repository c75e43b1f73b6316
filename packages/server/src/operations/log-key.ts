import { getLogKey } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { originOf } from '../store/log-signing.ts';
import { requireLog, requireLogUses } from './log-lookup.ts';

/** GET /log/{org}/key: the verifier key of the organisation's checkpoints and its log's origin. */
export const getLogKeyPlugin = definePlugin({
  operation: getLogKey,
  store: requireLogUses,
  async handler({ params, store }) {
    const { signing } = await requireLog(store, params.org);
    return { status: 200, body: { origin: originOf(signing, params.org), verifier_key: signing.signer.verifierKey } };
  },
});
