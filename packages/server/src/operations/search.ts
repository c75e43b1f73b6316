import { search } from '@trailproof/schema';
import { artifactFacts, artifactFactsUses } from '../domain/artifact-facts.ts';
import { notFound } from '../http/errors.ts';
import { resolvedTo, searchArtifactView, unreportedSearchArtifact } from '../http/views/artifacts.ts';
import { definePlugin } from '../plugin.ts';
import { maxArtifactsRead } from '../store/queries/artifact-reads.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

const distinct = (values: readonly string[]) => [...new Set(values)];

/**
 * GET /search/{org}/sha/{search_value}: the organisation's artifacts whose fingerprint or commit
 * starts with the value, as `kosli search` reads them, and fingerprints that only ran in its
 * environments (no provenance). No match is Kosli's 404 "No matches for '…'.".
 */
export const searchPlugin = definePlugin({
  operation: search,
  store: [...requireOrganizationUses, 'searchWithFacts', ...artifactFactsUses],
  async handler({ params, store, now, apiBase }) {
    const { id: organizationId } = await requireOrganization(store, params.org);
    const value = params.search_value;
    // The matches and what their answer adds to them, in one read.
    const found = await store.searchWithFacts(organizationId, value, maxArtifactsRead);
    const { byFingerprint, byCommit, deployed, rows, unreported } = found;
    const fingerprints = distinct([...byFingerprint.map((r) => r.fingerprint), ...deployed.map((d) => d.fingerprint)]);
    const commits = distinct(byCommit.map((r) => r.gitCommit ?? ''));
    if (!fingerprints.length && !commits.length) throw notFound(`No matches for '${value}'.`);
    const { states, where } = await artifactFacts(store, now, organizationId, rows, {
      fingerprints: found.fingerprints,
      withLogIndexes: false,
      read: found.facts ?? undefined,
    });
    const at = { org: params.org, apiBase };
    const artifacts = [
      ...rows.map((r, i) => searchArtifactView(r, states[i]!, at, where.get(r.fingerprint)!)),
      ...unreported.map((d) => unreportedSearchArtifact(d.fingerprint, d.artifactName, where.get(d.fingerprint)!)),
    ];
    return { status: 200, body: { resolved_to: resolvedTo(fingerprints, commits), artifacts } };
  },
});
