/**
 * The search box's answer (`?q=`): a commit SHA or a fingerprint, whole or a prefix of at least 7
 * hexadecimal characters, matched as the API's search matches it (`GET /search/{org}/sha/{value}`).
 * One artifact found (and no trail) opens its page; several are listed; none says so. Any other
 * text finds artifacts and trails by the start of their name; trails by the start of their commit too.
 */
import { artifactStates } from '../../domain/artifact-facts.ts';
import { maxArtifactsRead, type ReadArtifactRow } from '../../store/queries/artifact-reads.ts';
import { searchMaxLength } from '../layout.tsx';
import { artifactPageHref, orgHref, trailPageHref } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';
import { Time } from '../components/time.tsx';
import { StateBadge } from '../components/compliance.tsx';
import { TrailMatches, trailMatches } from '../components/trail-matches.tsx';

const searchable = /^[0-9a-f]{7,64}$/;
/** What can start a trail's name: the box's length at most, no control characters. */
const nameLike = /^[^\u0000-\u001f\u007f]{1,64}$/;

function Form({ input, value }: { input: PageInput; value: string }) {
  return (
    <form class="filters" method="get" action={orgHref(input, 'search')}>
      <label>
        Commit SHA, fingerprint, or the start of a name
        <input name="q" type="search" value={value} maxlength={searchMaxLength} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

type ArtifactState = Awaited<ReturnType<typeof artifactStates>>[number];

/** Artifacts found, each with its fingerprint, commit, trail, time and state; `unreported`: fingerprints only seen running. */
function ArtifactTable({
  input,
  rows,
  states,
  unreported = [],
}: {
  input: PageInput;
  rows: readonly ReadArtifactRow[];
  states: readonly ArtifactState[];
  unreported?: readonly { fingerprint: string; artifactName: string }[];
}) {
  return (
    <table class="wrap">
      <thead>
        <tr>
          <th scope="col">Artifact</th>
          <th scope="col">Fingerprint</th>
          <th scope="col">Commit</th>
          <th scope="col">Flow / trail</th>
          <th scope="col">Reported</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr>
            <td>
              <a href={artifactPageHref(input, r.fingerprint, r.flowName)}>
                <bdi>{r.templateReferenceName || r.filename}</bdi>
              </a>
              {r.templateReferenceName && r.filename !== r.templateReferenceName ? (
                <>
                  {' '}
                  <span class="muted">
                    <bdi>{r.filename}</bdi>
                  </span>
                </>
              ) : null}
            </td>
            <td>
              <code title={r.fingerprint}>{r.fingerprint.slice(0, 12)}</code>
            </td>
            <td>{r.gitCommit ? <code title={r.gitCommit}>{r.gitCommit.slice(0, 7)}</code> : <span class="muted">–</span>}</td>
            <td>
              <a href={trailPageHref(input, r.flowName, r.trailName)}>
                <bdi>{r.flowName}</bdi>/<bdi>{r.trailName}</bdi>
              </a>
            </td>
            <td>
              <Time at={r.createdAt} now={input.now} />
            </td>
            <td>
              <StateBadge state={states[i]!.state} />
            </td>
          </tr>
        ))}
        {unreported.map((d) => (
          <tr>
            <td>
              <a href={artifactPageHref(input, d.fingerprint)}>
                <bdi>{d.artifactName}</bdi>
              </a>
            </td>
            <td>
              <code title={d.fingerprint}>{d.fingerprint.slice(0, 12)}</code>
            </td>
            <td colSpan={3} class="muted">
              never reported by a flow: only seen running
            </td>
            <td>
              <StateBadge state={null} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export const searchPage = definePage({
  path: '/:org/search',
  // Its HTML is remembered until the next commit or until a "how long ago" it writes moves: nothing else it shows moves with the time (a single match answers a redirect, never kept).
  remembered: true,
  async render(input) {
    const { store, org } = input;
    const asked = input.query.get('q') ?? '';
    const value = asked.trim().toLowerCase();
    // What was typed is shown back cut to the box's length: the query string may hold far more.
    const shown = asked.slice(0, searchMaxLength);
    if (!searchable.test(value) && nameLike.test(value)) {
      const [trails, named] = await Promise.all([trailMatches(store, org.id, asked.trim()), store.artifactsNamed(org.id, asked.trim(), maxArtifactsRead)]);
      const states = await artifactStates(store, input.now, named);
      return {
        until: Number.POSITIVE_INFINITY,
        title: `Search ${asked.trim()}`,
        content: (
          <>
            <h1>
              Named <bdi>{asked.trim()}</bdi>…
            </h1>
            <Form input={input} value={shown} />
            <h2>Artifacts</h2>
            {named.length ? (
              <>
                {named.length >= maxArtifactsRead ? <p class="summary">The first {maxArtifactsRead} by name are shown.</p> : null}
                <ArtifactTable input={input} rows={named} states={states} />
              </>
            ) : (
              <p class="empty" data-testid="no-artifact-name-match">
                No artifact of {org.name} has a name starting with <bdi>{asked.trim()}</bdi>.
              </p>
            )}
            <h2>Trails</h2>
            <TrailMatches at={input} trails={trails} value={asked.trim()} now={input.now} />
          </>
        ),
      };
    }
    if (!searchable.test(value)) {
      return {
        until: Number.POSITIVE_INFINITY,
        title: 'Search',
        status: value === '' ? 200 : 400,
        content: (
          <>
            <h1>Find an artifact</h1>
            {value === '' ? null : (
              <p class="error-box" role="alert">
                Search takes a commit SHA or a fingerprint: 7 to 64 hexadecimal characters, not "<bdi>{shown}</bdi>"{asked.length > searchMaxLength ? '…' : ''}.
              </p>
            )}
            <Form input={input} value={shown} />
          </>
        ),
      };
    }
    const [{ byFingerprint, byCommit }, deployed, trails] = await Promise.all([
      store.searchArtifactRows(org.id, value, maxArtifactsRead),
      store.deployedFingerprints(org.id, value, maxArtifactsRead),
      trailMatches(store, org.id, value),
    ]);
    const rows = [...new Map([...byFingerprint, ...byCommit].sort((a, b) => b.id - a.id).map((r) => [r.id, r])).values()];
    const fingerprints = new Set([...rows.map((r) => r.fingerprint), ...deployed.map((d) => d.fingerprint)]);
    if (fingerprints.size === 1 && !trails.length) return { redirect: artifactPageHref(input, [...fingerprints][0]!) };
    const unreported = deployed.filter((d) => !rows.some((r) => r.fingerprint === d.fingerprint));
    const states = await artifactStates(store, input.now, rows);
    const cut = byFingerprint.length >= maxArtifactsRead || byCommit.length >= maxArtifactsRead || deployed.length >= maxArtifactsRead;
    return {
      until: Number.POSITIVE_INFINITY,
      title: `Search ${value}`,
      content: (
        <>
          <h1>
            Artifacts matching <code>{value}</code>
          </h1>
          <Form input={input} value={value} />
          {fingerprints.size === 0 ? (
            <p class="empty" data-testid="no-match">
              No artifact of {org.name} has a commit or a fingerprint starting with {value}.
            </p>
          ) : (
            <>
              <p class="summary" data-testid="matches">
                {fingerprints.size} artifacts match{cut ? ` (the first ${maxArtifactsRead} of each kind of match are shown)` : ''}.
              </p>
              <ArtifactTable input={input} rows={rows} states={states} unreported={unreported} />
            </>
          )}
          <h2>Trails</h2>
          <TrailMatches at={input} trails={trails} value={value} now={input.now} />
        </>
      ),
    };
  },
});
