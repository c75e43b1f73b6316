import { assertArtifact } from '@trailproof/schema';
import { assertArtifact as judge, assertArtifactUses } from './assert-judgement.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * GET /asserts/{org}/fingerprint/{fingerprint} (`kosli assert artifact`): the verdict against an
 * environment's policies, named policies, or the flows' templates; against policies it is also
 * recorded (once per distinct verdict) in the organisation's log and answered with its leaf.
 */
export const assertArtifactPlugin = definePlugin({
  operation: assertArtifact,
  store: [...requireOrganizationUses, 'findVerdictLeaves', ...assertArtifactUses],
  transaction: ['recordVerdict'],
  async handler({ params, query, principal, store, now, apiBase }) {
    if (query.environment_name !== undefined && query.policy_name?.length)
      throw badRequest('environment_name and policy_name are mutually exclusive', { environment_name: 'give environment_name or policy_name, not both' });
    const org = await requireOrganization(store, params.org);
    const policies = query.policy_name?.length ? query.policy_name : undefined;
    // The environment and everything the judgement reads, in one read (on SQLite one message to a reader thread).
    const read = await store.assertReads(org.id, params.org, {
      fingerprint: params.fingerprint,
      flow: query.flow_name,
      environment: query.environment_name,
      policies,
    });
    const found = read.environment;
    if (found === null) throw notFound(`Environment named '${query.environment_name}' does not exist for organization '${params.org}'`);
    const request = {
      org,
      fingerprint: params.fingerprint,
      flow: query.flow_name,
      environment: found && { name: found.name, policies: found.policies },
      policies,
      read,
    };
    // Once per distinct verdict: the same judgement of the same evidence reads its record instead of writing another.
    const record = async (verdict: { compliant: boolean }, text: string, sha256: string) =>
      (await store.findVerdictLeaves(org.id, [sha256]))[0] ??
      store.transaction((tx) =>
        tx.recordVerdict({
          organizationId: org.id,
          fingerprint: params.fingerprint,
          verdict: text,
          sha256,
          compliant: verdict.compliant,
          createdBy: principal.tokenId,
          at: now,
        }),
      );
    return { status: 200, json: answerJson(await judge(store, now, { org: params.org, apiBase }, request, record)) };
  },
});

/** The text of each remembered judgement's evaluations (judgement-memory.ts keeps the same array while its evidence stands). */
const evaluationsText = new WeakMap<object, string>();

/**
 * The answer as `JSON.stringify` writes it, its evaluations (most of its bytes) written once per
 * judgement remembered; `policy_evaluations` and `log_index` are the answer's last members.
 */
function answerJson(answer: Awaited<ReturnType<typeof judge>>): string {
  const { policy_evaluations, log_index, ...rest } = answer;
  let evaluations = evaluationsText.get(policy_evaluations);
  if (evaluations === undefined) evaluationsText.set(policy_evaluations, (evaluations = JSON.stringify(policy_evaluations)));
  return `${JSON.stringify(rest).slice(0, -1)},"policy_evaluations":${evaluations},"log_index":${JSON.stringify(log_index)}}`;
}
