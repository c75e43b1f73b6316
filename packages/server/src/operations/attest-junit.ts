import { attestJunit } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireTrail } from './lookup.ts';

/** A JUnit attestation is compliant when no suite has failures or errors. */
export const junitCompliant = (results: ReadonlyArray<{ failures: number; errors: number }>) =>
  results.every((r) => r.failures === 0 && r.errors === 0);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/junit */
export const attestJunitPlugin = definePlugin({
  operation: attestJunit,
  async handler({ params, data, files, store, now }) {
    const { trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    const attachment = files.attachment_file;
    await store.transaction(async (tx) => {
      const attachmentSha256 = attachment ? await tx.putBlob(attachment.buffer, now) : null;
      await tx.insertAttestation({
        trailId: trail.id, name: data.attestation_name, type: 'junit', data, artifactFingerprint: data.artifact_fingerprint ?? null,
        attachmentSha256, attachmentName: attachment?.originalName ?? null, compliant: junitCompliant(data.junit_results), at: now,
      });
    });
    return { status: 201, body: `junit attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
