import { getEnvironment } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';

/** GET /environments/{org}/{env_name} */
export const getEnvironmentPlugin = definePlugin({
  operation: getEnvironment,
  store: requireEnvironmentUses,
  async handler({ params, store }) {
    const { environment: found } = await requireEnvironment(store, params.org, params.env_name);
    const { id: _id, space_id: _space, ...environment } = found;
    return { status: 200, body: environment as never };
  },
});
