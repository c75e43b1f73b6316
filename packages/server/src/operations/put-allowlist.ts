import { putAllowlist } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';

/**
 * PUT /allowlists/{org}/{env_name}: `kosli allow artifact`. The fingerprint passes the
 * environment's judgement from now on (domain/snapshot-judgement.ts); Kosli answers 201 with the
 * allowance as sent.
 */
export const putAllowlistPlugin = definePlugin({
  operation: putAllowlist,
  store: requireEnvironmentUses,
  transaction: ['insertAllowlistEntry'],
  async handler({ params, data, principal, store, now }) {
    const { organization, environment } = await requireEnvironment(store, params.org, params.env_name);
    await store.transaction((tx) =>
      tx.insertAllowlistEntry({
        organizationId: organization.id,
        environmentId: environment.id,
        fingerprint: data.artifact_fingerprint,
        artifactName: data.artifact_name,
        description: data.description,
        createdBy: principal.tokenId,
        at: now,
      }),
    );
    return { status: 201, body: data };
  },
});
