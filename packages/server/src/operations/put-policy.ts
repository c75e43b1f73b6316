import { putPolicy } from '@trailproof/schema';
import { badRequest } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';
import { requireValidPolicy } from './policy-upload.ts';

/** PUT /policies/{org}: 201 for a new policy, 200 for a new version; a bad file is a 400 naming field and line, and nothing is stored. */
export const putPolicyPlugin = definePlugin({
  operation: putPolicy,
  store: [...requireOrganizationUses, 'putPolicyVersion'],
  async handler({ params, data, files, principal, store, now }) {
    const file = files.policy_file;
    if (!file) throw badRequest('The policy_file part is required', { policy_file: 'is required' });
    const { text } = requireValidPolicy(file.buffer);
    const organization = await requireOrganization(store, params.org);
    const { created } = await store.putPolicyVersion({
      organizationId: organization.id,
      name: data.name,
      description: data.description ?? null,
      type: data.type ?? 'env',
      comment: data.comment ?? '',
      yaml: text,
      createdBy: principal.tokenId,
      at: now,
    });
    return created ? { status: 201, body: `policy '${data.name}' was created` } : { status: 200, body: `policy '${data.name}' was updated` };
  },
});
