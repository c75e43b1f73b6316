/** Trails by id with their effective template: what the trail evaluator needs to judge many trails in one batch. */
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, type Db } from '../database.ts';

const templatesOf = compiledOnce((db, v: { ids: number[] }) =>
  db
    .selectFrom('trails')
    .innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select(['trails.id', 'trails.template_sha256', 'flows.template_sha256 as flow_template_sha256'])
    .where('trails.id', 'in', v.ids),
);

/** Each existing trail of `trailIds` with its own template, else its flow's (null without either). */
export async function effectiveTemplatesOf(db: Db, trailIds: readonly number[]): Promise<Array<{ id: number; effectiveTemplateSha256: string | null }>> {
  const slices = await Promise.all(inListChunks([...new Set(trailIds)]).map((ids) => templatesOf(db, { ids })));
  return slices.flat().map((r) => ({ id: Number(r.id), effectiveTemplateSha256: r.template_sha256 ?? r.flow_template_sha256 }));
}

export const reads = { effectiveTemplatesOf };
export const writes = {};
