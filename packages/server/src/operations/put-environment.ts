import { putEnvironment } from '@trailproof/schema';
import { badRequest } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import type { Queries } from '../store/types.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * PUT /environments/{org}: 201 when new, 200 when updated. Fields left out keep their value, so
 * re-running a CI job that creates the environment does not wipe tags or policies set since.
 */
export const putEnvironmentPlugin = definePlugin({
  operation: putEnvironment,
  store: [...requireOrganizationUses, 'findEnvironment', 'typesOfEnvironments'],
  transaction: ['upsertEnvironment'],
  async handler({ params, data, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const existing = await store.findEnvironment(organization.id, params.org, data.name);
    const type = data.type as string;
    const included = data.included_environments ?? (existing?.type === 'logical' && type === 'logical' ? existing.included_environments : []);
    await checkIncluded(store, organization.id, data.name, type, included);
    const { created } = await store.transaction((tx) =>
      tx.upsertEnvironment(
        organization.id,
        {
          name: data.name,
          type,
          description: data.description ?? existing?.description ?? '',
          include_scaling: data.include_scaling ?? existing?.include_scaling ?? false,
          tags: data.tags ?? existing?.tags ?? {},
          policies: data.policies ?? existing?.policies ?? [],
          included_environments: included,
          space_id: existing?.space_id ?? null,
        },
        now,
      ),
    );
    return created ? { status: 201, body: `Environment '${data.name}' was created` } : { status: 200, body: `Environment '${data.name}' was updated` };
  },
});

/** A logical environment groups physical ones that exist; other types include nothing. */
async function checkIncluded(store: Pick<Queries, 'typesOfEnvironments'>, organizationId: number, name: string, type: string, included: string[]) {
  if (type !== 'logical') {
    if (included.length)
      throw badRequest('Only logical environments include other environments', { included_environments: 'must be empty unless type is logical' });
    return;
  }
  const types = await store.typesOfEnvironments(organizationId, included);
  const errors: Record<string, string> = {};
  included.forEach((other, i) => {
    if (other === name) errors[`included_environments.${i}`] = 'an environment cannot include itself';
    else if (!types.has(other)) errors[`included_environments.${i}`] = `environment '${other}' does not exist`;
    else if (types.get(other) === 'logical') errors[`included_environments.${i}`] = `environment '${other}' is logical; include physical environments`;
  });
  if (Object.keys(errors).length) throw badRequest('Invalid included environments', errors);
}
