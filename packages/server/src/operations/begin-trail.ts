import { beginTrail } from '@trailproof/schema';
import { requireValidTemplate } from './template-upload.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** PUT /trails/{org}/{flow_name}: 201 when the trail is new, 200 when it is begun again. */
export const beginTrailPlugin = definePlugin({
  operation: beginTrail,
  store: requireOrganizationUses,
  transaction: ['ensureFlow', 'putBlob', 'upsertTrail'],
  async handler({ params, data, files, principal, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const template = files.template_file;
    if (template) requireValidTemplate(template.buffer); // a bad template is a 400 naming its line, before anything is stored
    const { created } = await store.transaction(async (tx) => {
      const flow = await tx.ensureFlow(organization.id, params.flow_name, now);
      const templateSha256 = template ? await tx.putBlob(template.buffer, now) : null;
      return tx.upsertTrail(Number(flow.id), data, templateSha256, now, principal.tokenId);
    });
    return created
      ? { status: 201, body: `Trail '${data.name}' was begun in flow '${params.flow_name}'` }
      : { status: 200, body: `Trail '${data.name}' was updated in flow '${params.flow_name}'` };
  },
});
