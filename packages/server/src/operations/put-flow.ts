import { putFlow } from '@trailproof/schema';
import { templateYaml } from '../evidence/template.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/**
 * PUT /flows/{org}: 201 when the flow is new, 200 when it is updated. The legacy `template` is a
 * list of attestation names; it becomes a version 1 template of trail-level attestations of any
 * type (`*`), stored like an uploaded one. `artifact` in the list meant "an artifact is reported"
 * and requires no attestation.
 */
export const putFlowPlugin = definePlugin({
  operation: putFlow,
  async handler({ params, data, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const names = data.template?.filter((name) => name !== 'artifact');
    const { created } = await store.transaction(async (tx) => {
      let templateSha256: string | null | undefined;
      if (names?.length) {
        const yaml = templateYaml({ version: 1, trail: { attestations: [...new Set(names)].map((name) => ({ name, type: '*' })), artifacts: [] } });
        templateSha256 = await tx.putBlob(Buffer.from(yaml), now);
      } else if (names) {
        templateSha256 = null; // an empty list (or only `artifact`) removes the template
      }
      return tx.upsertFlow(organization.id, data.name, {
        description: data.description ?? undefined, visibility: data.visibility ?? undefined, repoUrl: data.repo_url ?? undefined, templateSha256,
      }, now);
    });
    return created
      ? { status: 201, body: `Flow '${data.name}' was created` }
      : { status: 200, body: `Flow '${data.name}' was updated` };
  },
});
