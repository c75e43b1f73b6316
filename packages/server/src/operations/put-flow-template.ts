import { putFlowTemplate } from '@trailproof/schema';
import { requireValidTemplate } from '../evidence/template.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/** PUT /flows/{org}/template_file: a bad template is a 400 naming its line, and nothing is stored. */
export const putFlowTemplatePlugin = definePlugin({
  operation: putFlowTemplate,
  async handler({ params, data, files, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const file = files.template_file;
    if (file) requireValidTemplate(file.buffer);
    const { created } = await store.transaction(async (tx) => {
      const templateSha256 = file ? await tx.putBlob(file.buffer, now) : undefined;
      return tx.upsertFlow(organization.id, data.name, {
        description: data.description ?? undefined, visibility: data.visibility ?? undefined, repoUrl: data.repo_url ?? undefined, templateSha256,
      }, now);
    });
    return created
      ? { status: 201, body: `Flow '${data.name}' was created` }
      : { status: 200, body: `Flow '${data.name}' was updated` };
  },
});
