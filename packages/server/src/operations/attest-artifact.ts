import { attestArtifact } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { trailNotFound, requireOrganization, requireOrganizationUses } from './lookup.ts';
import { beginTrailOnFirstUse } from './attest.ts';

/**
 * POST /artifacts/{org}/{flow_name} (`kosli attest artifact`): 201 with the artifact stored on its
 * trail, made on first use like an attestation's; 200 when the trail has the fingerprint already.
 */
export const attestArtifactPlugin = definePlugin({
  operation: attestArtifact,
  // Reports that arrive together share a transaction, a chain append and a commit (SQLite's writer thread, PostgreSQL's batched writes).
  store: [...requireOrganizationUses, 'beginOnFirstUse', 'appendArtifact'],
  async handler({ params, data, principal, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const where = { flow: params.flow_name, trail: data.trail_name, createdBy: principal.tokenId, now };
    const append = () =>
      store.appendArtifact({
        organizationId: organization.id,
        flow: params.flow_name,
        trail: data.trail_name,
        fingerprint: data.fingerprint,
        filename: data.filename,
        templateReferenceName: data.template_reference_name,
        gitCommit: data.git_commit || null,
        gitCommitInfo: data.git_commit_info ?? null,
        repoInfo: data.repo_info ?? null,
        buildUrl: data.build_url,
        commitUrl: data.commit_url,
        repoUrl: data.repo_url || null,
        externalUrls: data.external_urls ?? null,
        annotations: data.annotations ?? null,
        createdBy: principal.tokenId,
        at: now,
      });
    let stored = await append();
    if ('missing' in stored) {
      await beginTrailOnFirstUse(store, organization.id, where, {
        git_commit_info: data.git_commit_info ?? null,
        repo_info: data.repo_info ?? null,
        origin_url: data.build_url,
      });
      stored = await append();
    }
    if ('missing' in stored) throw trailNotFound(params.org, params.flow_name, data.trail_name, stored.missing);
    const said = `artifact '${data.filename}' with fingerprint ${data.fingerprint}`;
    return stored.created
      ? { status: 201, body: `${said} was attested to trail '${data.trail_name}'` }
      : { status: 200, body: `${said} was already attested to trail '${data.trail_name}'` };
  },
});
