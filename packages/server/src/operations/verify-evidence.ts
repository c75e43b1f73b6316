import { verifyEvidence } from '@trailproof/schema';
import { ApiError } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import type { VerifyResult } from '../store/types.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * Verifications running, per store (a process may serve several) and organisation, keyed by the
 * store's `verifyChain`: the one function the store, each plugin's part of it and the console
 * share, so that the API and the console's integrity page count against one limit: one at a time, since each reads all of the
 * organisation's evidence and a read-only token could otherwise start as many as it likes; and
 * how long the last one took, to say when to come back.
 */
const verifications = new WeakMap<object, { running: Map<number, number>; lastMs: Map<number, number> }>();

/** At most this many at a time per store, whatever the organisations: each one keeps a core busy. */
const maxConcurrent = 2;

/** GET /verify/{org}: recomputes the organisation's hash chain and reports the first broken link. */
export const verifyEvidencePlugin = definePlugin({
  operation: verifyEvidence,
  store: [...requireOrganizationUses, 'verifyChain'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const { firstBroken, ...result } = await verifyOneAtATime(store, Number(organization.id), () => store.verifyChain(organization.id, organization.name));
    return { status: 200, body: { ...result, first_broken: firstBroken } };
  },
});

/** Runs `verify` unless this organisation's or too many verifications run already (429 with `Retry-After`); the console's integrity page shares it. */
export async function verifyOneAtATime(
  store: { verifyChain: (...args: never[]) => unknown },
  organizationId: number,
  verify: () => Promise<VerifyResult>,
): Promise<VerifyResult> {
  let state = verifications.get(store.verifyChain);
  if (!state) verifications.set(store.verifyChain, (state = { running: new Map(), lastMs: new Map() }));
  const { running, lastMs } = state;
  const since = running.get(organizationId);
  if (since !== undefined || running.size >= maxConcurrent) {
    // The time the last verification of this organisation took, less what the running one has had.
    const expectedMs = (lastMs.get(organizationId) ?? 1000) - (since === undefined ? 0 : Date.now() - since);
    const retryAfter = String(Math.max(1, Math.ceil(expectedMs / 1000)));
    const message = since !== undefined ? 'A verification of this organisation is already running' : 'Too many verifications are running';
    throw new ApiError(
      429,
      `${message}: retry in ${retryAfter} s`,
      { org: since !== undefined ? 'is being verified' : 'wait for a running verification to end' },
      { 'Retry-After': retryAfter },
    );
  }
  const started = Date.now();
  running.set(organizationId, started);
  try {
    return await verify();
  } finally {
    running.delete(organizationId);
    lastMs.set(organizationId, Date.now() - started);
  }
}
