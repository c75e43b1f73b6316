import { getEnvironment } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/** GET /environments/{org}/{env_name} */
export const getEnvironmentPlugin = definePlugin({
  operation: getEnvironment,
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const found = await store.findEnvironment(organization.id, params.org, params.env_name);
    if (!found) throw notFound(`Environment '${params.env_name}' not found in organization '${params.org}'`);
    const { id: _id, space_id: _space, ...environment } = found;
    return { status: 200, body: environment as never };
  },
});
