/**
 * The story the console's artifact, search and attestation views are tested on, with hostile text
 * wherever the API takes free text (artifact names, commit messages, pull requests, custom data):
 * flow `shop`'s template asks for a pull request on the trail and, of artifact `api`, a JUnit
 * report and a `custom:scan`. Trail t1 (commit C1) reports `api` (FA) and `web` (FW), attests a pull
 * request (found), api's tests (passing, by fingerprint) and api's scan (critical: 2, failing the
 * rule `.critical == 0`, by name). FL is reported to a flow and trail of the longest names. prod runs FA; staging ran FA and no longer does; FX ran in prod
 * but no flow reported it. Another organisation (`globex`) has an artifact of its own (FG).
 */
import { createHash } from 'node:crypto';
import type { TestServer } from '@trailproof/server/testing';

export const sha = (text: string) => createHash('sha256').update(text).digest('hex');
export const FA = sha('api:1');
export const FW = sha('web:1');
export const FX = sha('rogue:1');
export const FG = sha('globex:1');
export const FL = sha('long:1');
export const C1 = sha('commit:1').slice(0, 40);
/** The commit of the long-named flow's artifact. */
export const CL = sha('commit:long').slice(0, 40);

export const script = '<script>alert(1)</script>';
export const img = '"><img src=x onerror=alert(1)>';
export const rtl = '\u202Eevil\u202C שלום';
export const jsUrl = 'javascript:alert(1)';
export const hostile = `${script} ${img} ${rtl}`;
/** The longest flow name the API takes (flow names are `[A-Za-z0-9._~-]`, 128 characters at most). */
export const longFlow = `f${'x'.repeat(127)}`;
/** An artifact name of the longest text the API takes (256 characters), hostile. */
export const apiName = `${hostile} ${'y'.repeat(256 - hostile.length - 1)}`;

const template = [
  'version: 1',
  'trail:',
  '  attestations:',
  '  - name: pr',
  '    type: pull_request',
  '  artifacts:',
  '  - name: api',
  '    attestations:',
  '    - name: unit',
  '      type: junit',
  '    - name: scan',
  '      type: custom:scan',
].join('\n');

type Call = (method: string, path: string, options: Parameters<TestServer['request']>[2]) => Promise<void>;

export const pod = (name: string, image: string, fingerprint: string) => ({
  podName: name,
  namespace: 'ns',
  digests: { [image]: fingerprint },
  creationTimestamp: 1_764_000_000,
});

export function caller(server: Pick<TestServer, 'request'>): Call {
  return async (method, path, options) => {
    const res = await server.request(method, `/api/v2${path}`, options);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
}

export async function playArtifactStory(server: Pick<TestServer, 'request' | 'otherToken'>): Promise<void> {
  const call = caller(server);
  await call('PUT', '/flows/acme/template_file', {
    form: {
      data_json: JSON.stringify({ name: 'shop', description: hostile, visibility: 'private' }),
      template_file: { content: template, name: 'template.yml' },
    },
  });
  await call('POST', '/custom-attestation-types/acme', {
    form: {
      data_json: JSON.stringify({ name: 'scan', description: 'scanner summary', evaluator: { content_type: 'jq', rules: ['.critical == 0'] } }),
      type_schema: {
        content: JSON.stringify({ type: 'object', properties: { critical: { type: 'integer' } }, required: ['critical'] }),
        name: 'schema.json',
      },
    },
  });
  const commit = { sha1: C1, branch: 'main', author: 'Ada', message: `Fix ${hostile}`, url: jsUrl, timestamp: 1_764_000_000 };
  await call('PUT', '/trails/acme/shop', { form: { data_json: JSON.stringify({ name: 't1', git_commit_info: commit }) } });
  const artifact = (fingerprint: string, name: string, filename: string) =>
    call('POST', '/artifacts/acme/shop', {
      json: {
        fingerprint,
        filename,
        git_commit: C1,
        git_commit_info: commit,
        build_url: 'https://ci.example.com/runs/1',
        commit_url: jsUrl,
        template_reference_name: name,
        trail_name: 't1',
        annotations: { note: hostile },
      },
    });
  await artifact(FA, 'api', apiName);
  // To a flow and trail made on first use, of the longest name the API takes.
  await call('POST', `/artifacts/acme/${longFlow}`, {
    json: {
      fingerprint: FL,
      filename: apiName,
      // A commit of its own: search by C1 finds the shop's two artifacts only.
      git_commit: CL,
      git_commit_info: null,
      build_url: jsUrl,
      commit_url: jsUrl,
      template_reference_name: 'long',
      trail_name: longFlow,
    },
  });
  await artifact(FW, 'web', `web ${script}`);
  const attest = (kind: string, data: Record<string, unknown>) =>
    call('POST', `/attestations/acme/shop/trail/t1/${kind}`, { form: { data_json: JSON.stringify(data) } });
  await attest('pull_request', {
    attestation_name: 'pr',
    git_provider: 'github',
    pull_requests: [
      {
        merge_commit: C1,
        url: 'https://github.com/acme/shop/pull/7',
        state: 'MERGED',
        approvers: ['bob', { username: `carol ${script}`, state: 'APPROVED', timestamp: 1_764_000_100 }],
        author: `alice ${img}`,
        title: `Add checkout ${hostile}`,
        head_ref: 'feature/checkout',
        base_ref: 'main',
        commits: [],
      },
    ],
  });
  await attest('junit', {
    attestation_name: 'unit',
    artifact_fingerprint: FA,
    junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }],
  });
  await attest('custom', { attestation_name: 'scan', target_artifacts: ['api'], type_name: 'scan', attestation_data: { critical: 2, note: hostile } });

  await call('PUT', '/environments/acme', { json: { name: 'prod', type: 'K8S' } });
  await call('PUT', '/environments/acme', { json: { name: 'staging', type: 'K8S' } });
  await call('PUT', '/environments/acme/prod/report/K8S', { json: { artifacts: [pod('a1', 'api', FA), pod('x1', 'rogue', FX)] } });
  await call('PUT', '/environments/acme/staging/report/K8S', { json: { artifacts: [pod('a1', 'api', FA)] } });
  await call('PUT', '/environments/acme/staging/report/K8S', { json: { artifacts: [] } });

  await call('POST', '/artifacts/globex/secret', {
    token: server.otherToken,
    json: {
      fingerprint: FG,
      filename: 'secret',
      git_commit: C1,
      git_commit_info: null,
      build_url: 'https://ci.example.com/runs/9',
      commit_url: 'https://git.example.com/c',
      template_reference_name: 'secret',
      trail_name: 'g1',
    },
  });
}

/** `count` reports to environment `churn` that start and stop FA in turn: `count` history events. */
export async function playChurn(server: Pick<TestServer, 'request'>, count: number): Promise<void> {
  const call = caller(server);
  await call('PUT', '/environments/acme', { json: { name: 'churn', type: 'K8S' } });
  for (let i = 0; i < count; i++) {
    await call('PUT', '/environments/acme/churn/report/K8S', { json: { artifacts: i % 2 === 0 ? [pod('a1', 'api', FA)] : [] } });
  }
}
