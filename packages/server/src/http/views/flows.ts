/** A flow as the API answers it, with its template parsed and its YAML text. */
import type { FlowRecord } from '../../store/types.ts';
import type { TrailEvaluator } from '../../domain/evaluate.ts';
import { templateView } from '../../domain/template.ts';

export async function flowView(flow: FlowRecord, org: string, evaluator: TrailEvaluator) {
  const template = await evaluator.template(flow.templateSha256);
  return {
    org,
    name: flow.name,
    description: flow.description,
    visibility: flow.visibility as 'public' | 'private',
    template: template && !(template.model instanceof Error) ? templateView(template.model, template.content) : null,
    template_id: flow.templateSha256,
    repo_url: flow.repoUrl,
    // The Kosli CLI's flow list reads the object on every flow unchecked: always an object.
    tags: flow.tags,
    created_at: flow.createdAt,
    last_modified_at: flow.lastModifiedAt,
  };
}
