/**
 * Which leaves a selection picks, read from the leaf alone: the export and the verifier share
 * this, so what a package must hold is what the signed leaves say, not what a database said.
 */
import type { Selection } from './package-format.ts';

/** What of a leaf a selection reads: its type, time and data (flow, trail, a review's approval). */
export interface SelectableLeaf {
  readonly type: unknown;
  readonly at: unknown;
  readonly data: unknown;
}

/** Whether the selection picks every leaf (nothing narrows it). */
export const isWholeLog = (selection: Selection): boolean => Object.values(selection).every((value) => value === undefined);

/** The selection as `flow=backend trail=t1`, for messages. */
export const describeSelection = (selection: Selection): string =>
  Object.entries(selection)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ') || 'the whole log';

/**
 * Whether `leaf` is of the selection: its time, its trail (trail begins, attestations and artifacts only),
 * its flow (snapshots belong to none; a review, to its approval's, which `approvalFlow` gives from
 * the approval's own leaf). A leaf of another type is of no selection but the whole log.
 */
export function inSelection(leaf: SelectableLeaf, selection: Selection, approvalFlow: (approvalId: number) => string | undefined): boolean {
  const data = (leaf.data !== null && typeof leaf.data === 'object' ? leaf.data : {}) as Record<string, unknown>;
  const at = Number(leaf.at);
  if (selection.since !== undefined && !(at >= selection.since)) return false;
  if (selection.until !== undefined && !(at <= selection.until)) return false;
  if (selection.trail !== undefined && (data.trail !== selection.trail || !onTrail(leaf.type))) return false;
  if (selection.flow === undefined) return true;
  if (leaf.type === 'review') return approvalFlow(Number(data.approval_id)) === selection.flow;
  if (!onTrail(leaf.type) && leaf.type !== 'approval') return false;
  return data.flow === selection.flow;
}

/** Whether a leaf's evidence is on a trail (its data names flow and trail). */
const onTrail = (type: unknown) => type === 'trail.begin' || type === 'attestation' || type === 'artifact';

/** An approval leaf's row id and flow, for `inSelection`'s reviews; undefined for any other leaf. */
export function approvalOf(leaf: { type: unknown; ref?: unknown; data: unknown }): { id: number; flow: string } | undefined {
  if (leaf.type !== 'approval' || leaf.ref === null || typeof leaf.ref !== 'object') return undefined;
  const id = (leaf.ref as Record<string, unknown>).id;
  const flow = (leaf.data as Record<string, unknown> | null)?.flow;
  return typeof id === 'number' && typeof flow === 'string' ? { id, flow } : undefined;
}
