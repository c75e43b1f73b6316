import { putFlowTemplate } from '@trailproof/schema';
import { requireValidTemplate } from './template-upload.ts';
import { definePlugin } from '../plugin.ts';
import { saveFlow, saveFlowUses } from './save-flow.ts';

/** PUT /flows/{org}/template_file: a bad template is a 400 naming its line, and nothing is stored. */
export const putFlowTemplatePlugin = definePlugin({
  operation: putFlowTemplate,
  ...saveFlowUses,
  async handler({ params, data, files, store, now }) {
    const file = files.template_file;
    if (file) requireValidTemplate(file.buffer);
    return saveFlow(store, { org: params.org, data, now, template: async (tx) => (file ? tx.putBlob(file.buffer, now) : undefined) });
  },
});
