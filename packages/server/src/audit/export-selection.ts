/** The 404 for an export's selection that names a flow or trail the organisation does not have. */
import { ApiError } from '../http/errors.ts';
import type { Selection } from './package-format.ts';
import type { StoreUses } from '../store/types.ts';

export const requireSelectionUses = ['findFlow', 'findTrail'] as const;

/**
 * Throws a 404 naming `query.flow` or `query.trail` when the selection names a flow or trail that
 * does not exist: an empty package of a misspelt name would read as "this flow has no evidence".
 */
export async function requireSelection(
  store: StoreUses<typeof requireSelectionUses>,
  org: string,
  organizationId: number,
  selection: Selection,
): Promise<void> {
  if (selection.flow === undefined) return;
  if (!(await store.findFlow(organizationId, selection.flow)))
    throw new ApiError(404, `Flow '${selection.flow}' not found in organization '${org}'`, { 'query.flow': 'no such flow' });
  if (selection.trail !== undefined && !(await store.findTrail(organizationId, selection.flow, selection.trail)))
    throw new ApiError(404, `Trail '${selection.trail}' not found in flow '${selection.flow}'`, { 'query.trail': 'no such trail in the flow' });
}
