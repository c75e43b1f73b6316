/**
 * The story the organisation-wide views are tested on: flows app and web; app's trails a1 (main,
 * passing tests), a2 (main, failing) and f1 (branch feature, passing); web's w1 (main, failing);
 * globex has a trail of its own named like acme's. Each trail's commit is `sha(name)`.
 */
import { createHash } from 'node:crypto';
import type { TestServer } from '@trailproof/server/testing';

export const commitOf = (trail: string) => createHash('sha1').update(trail).digest('hex');

export const teamTrails = [
  { flow: 'app', trail: 'a1', branch: 'main', failures: 0 },
  { flow: 'app', trail: 'a2', branch: 'main', failures: 2 },
  { flow: 'app', trail: 'f1', branch: 'feature', failures: 0 },
  { flow: 'web', trail: 'w1', branch: 'main', failures: 1 },
] as const;

export async function playTeamStory(server: Pick<TestServer, 'request' | 'otherToken'>): Promise<void> {
  const call = async (method: string, path: string, options: Parameters<TestServer['request']>[2]) => {
    const res = await server.request(method, `/api/v2${path}`, options);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  const begin = (flow: string, trail: string, branch: string, token?: string) =>
    call('PUT', `/trails/${token ? 'globex' : 'acme'}/${flow}`, {
      token,
      form: {
        data_json: JSON.stringify({
          name: trail,
          git_commit_info: { sha1: commitOf(trail), branch, author: 'Ada <ada@example.com>', message: 'work', timestamp: 1_764_000_000 },
        }),
      },
    });
  for (const { flow, trail, branch, failures } of teamTrails) {
    await begin(flow, trail, branch);
    const junit = { attestation_name: 'unit', junit_results: [{ name: 's', failures, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }] };
    await call('POST', `/attestations/acme/${flow}/trail/${trail}/junit`, { form: { data_json: JSON.stringify(junit) } });
  }
  await begin('app', 'secret-of-globex', 'main', server.otherToken);
}
