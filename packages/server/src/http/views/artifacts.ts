/**
 * Artifacts as the API shows them: the audit package's and the trail's view (`artifactView`), and
 * what `kosli get artifact`, `list artifacts` and `search` read, each field present and typed.
 */
import { createdByName } from '../../domain/created-by.ts';
import type { ArtifactRow } from '../../store/types.ts';
import { pathOf, type ViewContext } from '../links.ts';
import type { ArtifactState } from '../../domain/artifact-state.ts';
import type { ArtifactHistoryEvent, Whereabouts } from '../../domain/artifact-whereabouts.ts';

export function artifactView(r: ArtifactRow, logIndex: number | null) {
  return {
    artifact_id: String(r.id),
    fingerprint: r.fingerprint,
    filename: r.filename,
    template_reference_name: r.templateReferenceName,
    flow_name: r.flowName,
    trail_name: r.trailName,
    git_commit: r.gitCommit,
    git_commit_info: r.gitCommitInfo,
    repo_info: r.repoInfo,
    build_url: r.buildUrl,
    commit_url: r.commitUrl,
    repo_url: r.repoUrl,
    external_urls: r.externalUrls,
    annotations: r.annotations,
    created_at: r.createdAt,
    created_by: createdByName(r.createdBy),
    log_index: logIndex,
  };
}

/** An artifact's state with why. */
export interface StateOf {
  state: ArtifactState;
  info: string;
}

/**
 * The console's address beside the API: the standalone app serves the console at `/ui` next to
 * `/api/v2`, so the artifact page is found from the API's own path (the CLI prints it as the artifact URL).
 */
const consoleBase = (apiBase: string) => `${apiBase.endsWith('/api/v2') ? apiBase.slice(0, -'/api/v2'.length) : ''}/ui`;

/** The artifact's page in the console. */
export const artifactPageHref = (at: ViewContext, flow: string, fingerprint: string) =>
  `${consoleBase(at.apiBase)}/${pathOf(at.org, 'flows', flow, 'artifacts', fingerprint)}`;

const apiHref = (at: ViewContext, row: ArtifactRow) => `${at.apiBase}/artifacts/${pathOf(at.org, row.flowName, 'fingerprint', row.fingerprint)}`;

/** The list's item: every reported field and the state, without where it runs. */
export function artifactListItem(row: ArtifactRow, state: StateOf, at: ViewContext, logIndex: number | null) {
  return {
    id: String(row.id),
    fingerprint: row.fingerprint,
    filename: row.filename,
    flow_name: row.flowName,
    trail_name: row.trailName,
    template_reference_name: row.templateReferenceName || null,
    git_commit: row.gitCommit ?? '',
    git_commit_info: row.gitCommitInfo as never,
    repo_info: row.repoInfo as never,
    commit_url: row.commitUrl,
    build_url: row.buildUrl,
    repo_url: row.repoUrl,
    html_url: artifactPageHref(at, row.flowName, row.fingerprint),
    api_url: apiHref(at, row),
    created_at: row.createdAt,
    last_modified_at: row.createdAt,
    external_urls: row.externalUrls ?? {},
    annotations: row.annotations ?? {},
    state: state.state,
    state_info: state.info,
    deployments: [],
    evidence: {},
    created_by: createdByName(row.createdBy),
    log_index: logIndex,
  };
}

/** The report itself, first in an artifact's history. */
const reported = (row: ArtifactRow): ArtifactHistoryEvent => ({
  event: `${row.templateReferenceName || row.filename} reported`,
  type: 'created',
  timestamp: row.createdAt,
  environment_name: null,
  snapshot_index: null,
});

/** The report, then what its fingerprint did in environments, oldest first. */
const historyOf = (row: ArtifactRow, where: Whereabouts) => [reported(row), ...where.history].sort((a, b) => a.timestamp - b.timestamp);

/** One artifact (`get artifact`): the list's fields, where it runs and ran, and its history. */
export function artifactReadView(row: ArtifactRow, state: StateOf, at: ViewContext, logIndex: number | null, where: Whereabouts) {
  return { ...artifactListItem(row, state, at, logIndex), running: where.running, exited: where.exited, history: historyOf(row, where) };
}

/** A search's artifact (`SearchArtifact` of search.go): a report, with where its fingerprint runs and ran. */
export function searchArtifactView(row: ArtifactRow, state: StateOf, at: ViewContext, where: Whereabouts) {
  return {
    fingerprint: row.fingerprint,
    name: row.filename,
    has_provenance: true,
    git_commit: row.gitCommit ?? '',
    pipeline: row.flowName,
    flow: row.flowName,
    trail: row.trailName,
    template_reference_name: row.templateReferenceName || null,
    build_url: row.buildUrl,
    commit_url: row.commitUrl,
    html_url: artifactPageHref(at, row.flowName, row.fingerprint),
    api_url: apiHref(at, row),
    compliance_state: state.state,
    running_in: where.running.map((e) => e.environment_name),
    exited_from: where.exited.map((e) => e.environment_name),
    history: historyOf(row, where),
  };
}

/** A fingerprint seen running but never reported to a flow: no provenance, and only where it runs and ran. */
export function unreportedSearchArtifact(fingerprint: string, name: string, where: Whereabouts) {
  return {
    fingerprint,
    name,
    has_provenance: false,
    git_commit: '',
    pipeline: '',
    flow: '',
    trail: '',
    template_reference_name: null,
    build_url: '',
    commit_url: '',
    html_url: '',
    api_url: '',
    compliance_state: '' as const,
    running_in: where.running.map((e) => e.environment_name),
    exited_from: where.exited.map((e) => e.environment_name),
    history: where.history,
  };
}

/** What a search resolved to (`ResolvedToBody`): one fingerprint, one commit, or several of either. */
export function resolvedTo(fingerprints: string[], commits: string[]) {
  const type = fingerprints.length === 1 && !commits.length ? 'fingerprint' : commits.length === 1 && !fingerprints.length ? 'commit' : 'multiple';
  return {
    type: type as 'fingerprint' | 'commit' | 'multiple',
    full_match: fingerprints[0] ?? commits[0] ?? '',
    fingerprints: { type: 'fingerprint' as const, count: fingerprints.length, matches: fingerprints },
    commits: { type: 'commit' as const, count: commits.length, matches: commits },
  };
}
