/** The read benchmark's queries: paths under the API, for the organisation `bench` seeded by seed.ts. */
import { seeded, seedShape } from './seed.ts';

export interface ReadQuery {
  name: string;
  path: string;
}

/** `seededAt`: the seed's "now" (epoch seconds); the deep page's window starts at its first deployment. */
export function readPathQueries(seededAt: number): ReadQuery[] {
  const since = Math.floor(seededAt - seedShape.days * 86_400);
  const d = (query: string) => `/api/v2/deployments/bench${query}`;
  // A page of 20 named: without page or per_page the list answers every environment (up to 1,000), as the Kosli CLI expects.
  const e = (query: string) => `/api/v2/environments/bench${query}&per_page=20`;
  const queries: ReadQuery[] = [
    { name: 'deployments: default window', path: d('') },
    { name: 'deployments: env_name', path: d(`?env_name=${encodeURIComponent(seeded.envName)}`) },
    { name: 'deployments: repo_name', path: d(`?repo_name=${encodeURIComponent(seeded.repoName)}`) },
    { name: 'deployments: deep page (page 1000 of 50, 365 days)', path: d(`?start_ts=${since}&page=1000&per_page=50`) },
    { name: 'environments: name substring', path: e(`?name=${seeded.nameSubstring}`) },
    { name: 'environments: tag filter', path: e(`?tag=${encodeURIComponent(seeded.tag)}`) },
  ];
  for (const sort of ['name', 'last_modified_at', 'last_changed_at']) {
    for (const direction of ['asc', 'desc'])
      queries.push({ name: `environments: sort ${sort} ${direction}`, path: e(`?sort=${sort}&sort_direction=${direction}`) });
  }
  return queries;
}
