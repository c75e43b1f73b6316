/** A trail as the API answers it: its stored fields, its attestations and its compliance status. */
import type { AttestationViewBody, TrailSummaryBody } from '@trailproof/schema';
import { offsetPageLinks, pageCount, pageLinks, pathOf, trailHref, type ViewContext } from '../links.ts';
import { targetArtifactsOf } from '../../store/queries/attestation-facts.ts';
import type { AttestationRow, TrailRow } from '../../store/types.ts';
import { countingAttestations } from '../../domain/compliance.ts';
import { createdByName } from '../../domain/created-by.ts';
import type { EvaluatedCompliance, EvaluatedTrail } from '../../domain/evaluate.ts';
import { templateView } from '../../domain/template.ts';
import { trailEvents } from './trail-events.ts';

type Summary = TrailSummaryBody;
type Attestation = AttestationViewBody;

const objectOrNull = (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null);
const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

/** The trail without its attestations (the list shape). */
export function trailSummary(trail: TrailRow, evaluated: EvaluatedCompliance, at: ViewContext): Summary {
  const self = trailHref(at, trail.flowName, trail.name);
  const { template } = evaluated;
  return {
    name: trail.name,
    description: trail.description,
    flow: { name: trail.flowName },
    git_commit_info: (trail.gitCommitInfo as Summary['git_commit_info']) ?? null,
    repo_info: (trail.repoInfo as Summary['repo_info']) ?? null,
    origin_url: trail.originUrl,
    external_urls: (trail.externalUrls as Summary['external_urls']) ?? null,
    user_data: (trail.userData as Summary['user_data']) ?? null,
    created_at: trail.createdAt,
    created_by: createdByName(trail.createdBy),
    last_modified_at: trail.lastModifiedAt,
    // A stored template that no longer parses is shown as missing; the compliance reasons say why.
    template: template && !(template.model instanceof Error) ? templateView(template.model, template.content) : null,
    compliance_state: evaluated.compliance.status,
    is_compliant: evaluated.compliance.is_compliant,
    compliance_status: evaluated.compliance,
    _links: { self: { href: self }, flow: { href: `${at.apiBase}/flows/${pathOf(at.org, trail.flowName)}` } },
  };
}

/** Where the trail's latest begin and its attestations are in the organisation's log (store.logIndexesOf). */
export interface TrailLeaves {
  trail: number | null;
  attestations: ReadonlyMap<number, number>;
}

/** Which page of a trail's attestations was asked for: by number, or from an item (`offset`, which wins). */
export interface TrailPage {
  page: number;
  per_page: number;
  offset?: number;
  originalUrl: string;
}

/** The trail: the summary, its events, a page of its attestations (oldest first), and where that page sits among them. */
export function trailView(trail: TrailRow, evaluated: EvaluatedTrail, at: ViewContext, page: TrailPage, leaves: TrailLeaves) {
  const counting = new Set([...countingAttestations(evaluated.facts).values()].map((a) => a.id));
  const base = trailHref(at, trail.flowName, trail.name);
  const total = evaluated.facts.length;
  const pages = pageCount(total, page.per_page);
  const offset = page.offset ?? (page.page - 1) * page.per_page;
  const end = offset + evaluated.attestations.length;
  const nextOffset = end < total && evaluated.attestations.length ? end : null;
  // A page asked for by number and not cut short by bytes keeps the page-number links.
  const aligned = page.offset === undefined && (evaluated.attestations.length === page.per_page || nextOffset === null);
  const current = page.offset === undefined ? page.page : Math.floor(offset / page.per_page) + 1;
  const { events, total: eventsTotal } = trailEvents(trail, evaluated.facts, evaluated.artifacts);
  return {
    ...trailSummary(trail, evaluated, at),
    events,
    events_total: eventsTotal,
    log_index: leaves.trail,
    attestations: evaluated.attestations.map((a) => attestationView(a, counting.has(a.id), base, leaves.attestations.get(a.id) ?? null)),
    attestations_pagination: {
      total,
      page: current,
      per_page: page.per_page,
      page_count: pages,
      offset,
      next_offset: nextOffset,
      _links: aligned ? pageLinks(page.originalUrl, current, pages) : offsetPageLinks(page.originalUrl, current, pages, nextOffset),
    },
  };
}

/** One attestation as the API shows it; `counts`: it is the latest of its name (`is_latest`). */
export function attestationView(a: AttestationRow, counts: boolean, trailLink: string, logIndex: number | null): Attestation {
  const data = (objectOrNull(a.data) ?? {}) as Record<string, unknown>;
  const junit = a.type === 'junit' && Array.isArray(data.junit_results) ? (data.junit_results as Array<Record<string, number>>) : null;
  return {
    attestation_id: String(a.id),
    attestation_name: a.name,
    attestation_type: a.type,
    is_compliant: a.compliant,
    is_latest: counts,
    created_at: a.createdAt,
    created_by: createdByName(a.createdBy),
    log_index: logIndex,
    artifact_fingerprint: a.artifactFingerprint,
    target_artifacts: targetArtifactsOf(data),
    description: stringOrNull(data.description),
    origin_url: stringOrNull(data.origin_url),
    git_commit_info: objectOrNull(data.git_commit_info) as Attestation['git_commit_info'],
    repo_info: objectOrNull(data.repo_info) as Attestation['repo_info'],
    external_urls: objectOrNull(data.external_urls) as Attestation['external_urls'],
    annotations: objectOrNull(data.annotations) as Attestation['annotations'],
    user_data: (data.user_data ?? null) as Attestation['user_data'],
    junit_results: junit as Attestation['junit_results'],
    totals: junit ? totals(junit) : null,
    attachment: a.attachmentSha256
      ? {
          name: a.attachmentName ?? '',
          sha256: a.attachmentSha256,
          size: a.attachmentSize ?? 0,
          _links: { download: { href: `${trailLink}/attestations/${a.id}/attachment` } },
        }
      : null,
  };
}

/** Sums over the suites; duration rounded to microseconds so that float sums read cleanly. */
function totals(results: Array<Record<string, number>>) {
  const sum = (field: string) => results.reduce((n, r) => n + (Number(r[field]) || 0), 0);
  return {
    suites: results.length,
    total: sum('total'),
    failures: sum('failures'),
    errors: sum('errors'),
    skipped: sum('skipped'),
    duration: Math.round(sum('duration') * 1e6) / 1e6,
  };
}
