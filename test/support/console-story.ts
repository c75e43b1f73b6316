/**
 * The story the console's environment, deployments, approvals and integrity pages are tested on:
 * trail b1 of flow app attests api:1 with passing tests, b2 attests web:1 with failing ones; prod
 * runs api:1 (2 instances) and web:1, then db:1 joins; staging runs web:1; api:1 has an approval
 * for prod with two reviews whose text is hostile. And how the tests read a page: signed in with a
 * session cookie (`signInTo`), as the text a person reads (`textOf`).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { TestServer } from '@trailproof/server/testing';

export const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const pod = (name: string, image: string) => ({
  podName: name,
  namespace: 'ns',
  digests: { [image.split(':')[0]!]: sha(image) },
  creationTimestamp: 1_764_000_000,
});

/** An API call of the story: anything but 200 or 201 stops it, with what the server answered. */
const callerOf = (server: Pick<TestServer, 'request'>) => async (method: string, path: string, options: Parameters<TestServer['request']>[2]) => {
  const res = await server.request(method, `/api/v2${path}`, options);
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
};

export async function playExtrasStory(server: Pick<TestServer, 'request'>): Promise<void> {
  const call = callerOf(server);
  for (const [trail, image, failures] of [
    ['b1', 'api:1', 0],
    ['b2', 'web:1', 2],
  ] as const) {
    await call('PUT', '/trails/acme/app', {
      form: { data_json: JSON.stringify({ name: trail, repo_info: { name: 'acme/app', url: 'https://git.example.com/acme/app' } }) },
    });
    const data = {
      attestation_name: 'unit',
      junit_results: [{ name: 's', failures, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }],
      artifact_fingerprint: sha(image),
    };
    await call('POST', `/attestations/acme/app/trail/${trail}/junit`, { form: { data_json: JSON.stringify(data) } });
  }
  await call('PUT', '/environments/acme', { json: { name: 'prod', type: 'K8S' } });
  await call('PUT', '/environments/acme', { json: { name: 'staging', type: 'K8S' } });
  await call('PUT', '/environments/acme/prod/report/K8S', { json: { artifacts: [pod('a1', 'api:1'), pod('a2', 'api:1'), pod('w1', 'web:1')] } });
  await call('PUT', '/environments/acme/prod/report/K8S', {
    json: { artifacts: [pod('a1', 'api:1'), pod('a2', 'api:1'), pod('w1', 'web:1'), pod('d1', 'db:1')] },
  });
  await call('PUT', '/environments/acme/staging/report/K8S', { json: { artifacts: [pod('w1', 'web:1')] } });
  const review = (state: string, by: string) => ({ state, approved_by: by, comment: `${by}: <script>alert(1)</script>`, approval_url: 'javascript:alert(2)' });
  // Requested without a review (PENDING), then reviewed twice: its state follows from the reviews.
  await call('POST', '/approvals/acme/app', {
    json: { artifact_fingerprint: sha('api:1'), description: 'release 1', src_commit_list: [], environment: 'prod' },
  });
  await call('PUT', '/approvals/acme/app/1', { json: review('APPROVED', 'alice') });
  await call('PUT', '/approvals/acme/app/1', { json: review('APPROVED', 'bob') });
}

/**
 * The environments list's story, after `playExtrasStory`: prod judged by prod-policy (trail
 * compliance required) with db:1 allowed, staging with no policy, dev created and never reported, and globex's own
 * environment, which acme never sees.
 */
export async function playEnvironmentsStory(server: Pick<TestServer, 'request' | 'otherToken'>): Promise<void> {
  const call = callerOf(server);
  const policy = '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  trail-compliance:\n    required: true\n';
  const payload = { name: 'prod-policy', description: 'Prod', comment: 'first', type: 'env' };
  await call('PUT', '/policies/acme', { form: { payload: JSON.stringify(payload), policy_file: { content: policy, name: 'policy.yml' } } });
  await call('POST', '/environments/acme/prod/policies', { json: { policy_names: ['prod-policy'] } });
  await call('PUT', '/allowlists/acme/prod', { json: { artifact_fingerprint: sha('db:1'), artifact_name: 'db', description: 'a vendor image' } });
  await call('PUT', '/environments/acme', { json: { name: 'dev', type: 'docker' } });
  await call('PUT', '/environments/globex', { token: server.otherToken, json: { name: 'secret-env-of-globex', type: 'K8S' } });
}

/** A page's text as a person reads it: tags dropped, entities of the escaper decoded, spaces folded. */
export function textOf(html: string): string {
  const body = html.replace(/^[\s\S]*?<main[^>]*>/, '').replace(/<\/main>[\s\S]*$/, '');
  return body
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A session cookie of the console of `server`, signed in with `token`. */
export async function signInTo(server: Pick<TestServer, 'url'>, token: string): Promise<string> {
  const res = await fetch(`${server.url}/ui/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).to.equal(303);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}
