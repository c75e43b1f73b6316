import { attachPolicies, detachPolicies } from '@trailproof/schema';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { judgeRunning, judgeRunningUses, verdictInputs } from '../domain/snapshot-judgement.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import type { StorePart } from '../store/types.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';

const store = [...requireEnvironmentUses, 'findPolicies'] as const;
const transaction = ['setEnvironmentPolicies', 'getSnapshot', 'insertSnapshot', 'recordVerdicts', ...judgeRunningUses] as const;
type ChangeStore = StorePart<(typeof store)[number], (typeof transaction)[number]>;

interface Change {
  org: string;
  env: string;
  names: string[];
  attach: boolean;
  by: string;
  now: number;
}

/**
 * Attaches or detaches policies; the latest snapshot is taken again as a new one, since the
 * reference says a change of policies makes a new snapshot, judged by the policies now attached
 * (its compliance and the environment's state are recorded with it, and each artifact's verdict).
 */
async function changePolicies(store: ChangeStore, c: Change): Promise<{ status: 200; body: string }> {
  const { organization, environment } = await requireEnvironment(store, c.org, c.env);
  const found = new Set((await store.findPolicies(organization.id, c.names)).map((p) => p.name));
  const missing = c.names.filter((n) => !found.has(n));
  if (missing.length) throw notFound(`Policy '${missing[0]}' does not exist in organization '${c.org}'`);
  const current = environment.policies;
  const notAttached = c.names.filter((n) => !current.includes(n));
  if (!c.attach && notAttached.length)
    throw badRequest(`Policy '${notAttached[0]}' is not attached to environment '${c.env}'`, { policy_names: `'${notAttached[0]}' is not attached` });
  const policies = c.attach ? [...current, ...notAttached] : current.filter((n) => !c.names.includes(n));
  // Attaching what is attached already changes nothing: no new snapshot for a re-run CI job.
  if (policies.length !== current.length || policies.some((p, i) => p !== current[i]))
    await store.transaction(async (tx) => {
      const latest = await tx.getSnapshot(environment.id, -1);
      // Judged by the policies it makes attached; the environment's state follows (shown by get environment).
      const judged = latest
        ? await judgeRunning(tx, new TrailEvaluator(tx, c.now), {
            organizationId: organization.id,
            environment: { id: environment.id, name: environment.name, policies },
            running: latest.artifacts,
            now: c.now,
          })
        : undefined;
      await tx.setEnvironmentPolicies(environment.id, policies, c.now, judged?.compliant);
      if (latest) await tx.insertSnapshot(environment.id, latest.index + 1, latest.artifacts, c.now, c.by, judged!.compliant);
      if (judged?.verdicts.length) await tx.recordVerdicts(organization.id, await verdictInputs(judged.verdicts, c.by, c.now));
    });
  const verb = c.attach ? 'attached to' : 'detached from';
  return { status: 200, body: `policies [${c.names.join(', ')}] ${verb} environment '${c.env}'` };
}

/** The plugin of attach (POST) or detach (DELETE): the two differ only in what they do to the list. */
const environmentPoliciesPlugin = (operation: typeof attachPolicies, attach: boolean) =>
  definePlugin({
    operation,
    store,
    transaction,
    handler: ({ params, data, principal, store, now }) =>
      changePolicies(store, { org: params.org, env: params.env_name, names: data.policy_names, attach, by: principal.tokenId, now }),
  });

/** POST /environments/{org}/{env_name}/policies */
export const attachPoliciesPlugin = environmentPoliciesPlugin(attachPolicies, true);

/** DELETE /environments/{org}/{env_name}/policies */
export const detachPoliciesPlugin = environmentPoliciesPlugin(detachPolicies, false);
