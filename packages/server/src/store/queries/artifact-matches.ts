/**
 * What a snapshot matches its running artifacts to (domain/running.ts), and what the verdicts of
 * their trails need: of the reported artifacts, only the columns used, without the JSON fields and
 * token an `ArtifactRow` parses, since a report of 1,000 pods asks for hundreds.
 */
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, type Db } from '../database.ts';
import { eachChunkInTurn } from '../../support/turns.ts';

export interface ArtifactMatchRow {
  id: number;
  fingerprint: string;
  trailId: number;
  trailName: string;
  flowName: string;
  repoName: string | null;
  gitCommit: string | null;
  commitUrl: string;
}

/** The row's columns that `matchColumns` selects, as a match. */
export const matchRowOf = (r: {
  id: number;
  fingerprint: string;
  trail_id: number;
  trail_name: string;
  flow_name: string;
  repo_name: string | null;
  git_commit: string | null;
  commit_url: string;
}): ArtifactMatchRow => ({
  id: Number(r.id),
  fingerprint: r.fingerprint,
  trailId: Number(r.trail_id),
  trailName: r.trail_name,
  flowName: r.flow_name,
  repoName: r.repo_name,
  gitCommit: r.git_commit,
  commitUrl: r.commit_url,
});

/** What a match reads of an artifact (`r`), its trail (`t`) and its flow (`f`). */
export const matchColumns = [
  'r.id',
  'r.fingerprint',
  'r.trail_id',
  't.name as trail_name',
  'f.name as flow_name',
  'r.repo_name',
  'r.git_commit',
  'r.commit_url',
] as const;

// Read at every environment report: compiled once per number of fingerprints in the chunk.
const matchesOf = compiledOnce((db, v: { organizationId: number; fingerprints: string[] }) =>
  db
    .selectFrom('artifacts as r')
    .innerJoin('trails as t', 't.id', 'r.trail_id')
    .innerJoin('flows as f', 'f.id', 'r.flow_id')
    .select(matchColumns)
    .where('r.organization_id', '=', v.organizationId)
    .where('r.fingerprint', 'in', v.fingerprints),
);

/** The organisation's artifacts with any of `fingerprints`, newest first: one statement per 500. */
export async function artifactMatchesOf(db: Db, organizationId: number, fingerprints: readonly string[]): Promise<ArtifactMatchRow[]> {
  const out: ArtifactMatchRow[] = [];
  // A turn of the event loop between statements: building each of 500 values took tens of ms (a report of 5,000).
  await eachChunkInTurn(inListChunks([...new Set(fingerprints)]), async (chunk) => {
    for (const r of await matchesOf(db, { organizationId, fingerprints: chunk })) out.push(matchRowOf(r));
  });
  return out.sort((x, y) => y.id - x.id);
}

export const reads = { artifactMatchesOf };
export const writes = {};
