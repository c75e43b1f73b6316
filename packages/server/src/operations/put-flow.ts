import { putFlow } from '@trailproof/schema';
import { templateYaml } from '../domain/template.ts';
import { definePlugin } from '../plugin.ts';
import { saveFlow, saveFlowUses } from './save-flow.ts';

/**
 * PUT /flows/{org}: 201 when the flow is new, 200 when it is updated. The legacy `template` is a
 * list of attestation names; it becomes a version 1 template of trail-level attestations of any
 * type (`*`), stored like an uploaded one. `artifact` in the list meant "an artifact is reported"
 * and requires no attestation.
 */
export const putFlowPlugin = definePlugin({
  operation: putFlow,
  ...saveFlowUses,
  async handler({ params, data, store, now }) {
    const names = data.template?.filter((name) => name !== 'artifact');
    return saveFlow(store, {
      org: params.org,
      data,
      now,
      async template(tx) {
        if (!names) return undefined;
        if (!names.length) return null; // an empty list (or only `artifact`) removes the template
        const yaml = templateYaml({ version: 1, trail: { attestations: [...new Set(names)].map((name) => ({ name, type: '*' })), artifacts: [] } });
        return tx.putBlob(Buffer.from(yaml), now);
      },
    });
  },
});
