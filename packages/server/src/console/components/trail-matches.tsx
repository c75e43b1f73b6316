/** The trails a search reaches: by the start of their name, and (for hexadecimal) of their commit. */
import type { Store, TrailWithTemplate } from '../../store/index.ts';
import { flowHref, trailPageHref, type LinkBase } from '../links.ts';
import { Commit } from './git.tsx';
import { Time } from './time.tsx';

/** Trails a search lists at most, of each kind of match. */
export const trailMatchesShown = 20;

/** The organisation's trails named from `value`, and those whose commit starts with it when it can be a SHA; each once, newest first. */
export async function trailMatches(store: Store, organizationId: number, value: string): Promise<TrailWithTemplate[]> {
  const newest = { by: 'created', direction: 'desc' } as const;
  const [named, committed] = await Promise.all([
    store.trailsNamed(organizationId, value, trailMatchesShown),
    /^[0-9a-f]{7,64}$/.test(value) ? store.listTrailView(organizationId, { commitPrefix: value }, newest, 0, trailMatchesShown) : { items: [] },
  ]);
  return [...new Map([...named, ...committed.items].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id).map((t) => [t.id, t])).values()];
}

export function TrailMatches({ at, trails, value, now }: { at: LinkBase; trails: readonly TrailWithTemplate[]; value: string; now: number }) {
  if (!trails.length)
    return (
      <p class="empty" data-testid="no-trail-match">
        No trail of {at.org.name} has a name{/^[0-9a-f]{7,64}$/.test(value) ? ' or a commit' : ''} starting with <bdi>{value}</bdi>.
      </p>
    );
  return (
    <table class="wrap" data-testid="trail-matches">
      <thead>
        <tr>
          <th scope="col">Trail</th>
          <th scope="col">Flow</th>
          <th scope="col">Commit</th>
          <th scope="col">Begun</th>
        </tr>
      </thead>
      <tbody>
        {trails.map((t) => (
          <tr>
            <td>
              <a href={trailPageHref(at, t.flowName, t.name)}>
                <bdi>{t.name}</bdi>
              </a>
            </td>
            <td>
              <a href={flowHref(at, t.flowName)}>
                <bdi>{t.flowName}</bdi>
              </a>
            </td>
            <td>
              <Commit info={t.gitCommitInfo} />
            </td>
            <td>
              <Time at={t.createdAt} now={now} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
