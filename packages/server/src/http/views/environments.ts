/** The environments page's items as the API answers them (`EnvironmentRecord`s), written as JSON text from the rows `listEnvironments` reads. */
import type { EnvironmentListRow } from '../../store/queries/environment-list.ts';

/**
 * One environment as JSON text (`orgJson`: the organisation's name as JSON): the record
 * `environmentFromRow` gives, with the JSON columns (tags, policies, included environments)
 * spliced in as stored, not parsed and written again: only `upsertEnvironment` writes them, with
 * JSON.stringify.
 */
function environmentJson(r: EnvironmentListRow, orgJson: string): string {
  const text = JSON.stringify;
  return (
    `{"org":${orgJson},"name":${text(r.name)},"type":${text(r.type)},"description":${text(r.description)},` +
    `"last_modified_at":${text(Number(r.last_modified_at))},"include_scaling":${Number(r.include_scaling) === 1},"tags":${r.tags},` +
    `"last_reported_at":${text(Number(r.last_reported_at ?? 0))},"last_changed_at":${text(Number(r.last_changed_at ?? 0))},` +
    `"state":${r.state !== null && Number(r.state) === 1},"policies":${r.policies},"included_environments":${r.included_environments}}`
  );
}

/** The items' JSON text, for the organisation `org`. */
export function environmentItemsJson(rows: readonly EnvironmentListRow[], org: string): string {
  const orgJson = JSON.stringify(org);
  return `[${rows.map((r) => environmentJson(r, orgJson)).join(',')}]`;
}
