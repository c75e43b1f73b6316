/** An artifact as the API shows it (the audit package's view, the trail's list of artifacts): its fields as reported, who reported it and its leaf. */
import { createdByName } from '../../domain/created-by.ts';
import type { ArtifactRow } from '../../store/types.ts';

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
