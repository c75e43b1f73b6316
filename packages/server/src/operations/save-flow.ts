/** Creating or updating a flow: what PUT flow and PUT flow template share. */
import type { Queries, StorePart } from '../store/types.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** What `saveFlow` uses of the store: its plugins spread it into their declaration. */
export const saveFlowUses = { store: requireOrganizationUses, transaction: ['upsertFlow', 'putBlob'] } as const;
type SaveFlowStore = StorePart<(typeof saveFlowUses.store)[number], (typeof saveFlowUses.transaction)[number]>;

export interface FlowToSave {
  org: string;
  /** The body's fields (null or absent: left as they are). */
  data: { name: string; description?: string | null; visibility?: string | null; repo_url?: string | null };
  /**
   * Stores the flow's template in the flow's transaction and answers its address: null removes
   * the template, undefined leaves it as it is.
   */
  template: (tx: Pick<Queries, 'putBlob'>) => Promise<string | null | undefined>;
  now: number;
}

/** Upserts the flow (its template with it, in one transaction) and answers 201 when it is new, 200 when it was updated. */
export async function saveFlow(store: SaveFlowStore, f: FlowToSave): Promise<{ status: 201; body: string } | { status: 200; body: string }> {
  const organization = await requireOrganization(store, f.org);
  const { data } = f;
  const { created } = await store.transaction(async (tx) =>
    tx.upsertFlow(
      organization.id,
      data.name,
      {
        description: data.description ?? undefined,
        visibility: data.visibility ?? undefined,
        repoUrl: data.repo_url ?? undefined,
        templateSha256: await f.template(tx),
      },
      f.now,
    ),
  );
  return created ? { status: 201 as const, body: `Flow '${data.name}' was created` } : { status: 200 as const, body: `Flow '${data.name}' was updated` };
}
