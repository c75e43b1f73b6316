/**
 * Evidence of every kind stored through the API, for the audit package's tests and benchmark:
 * trails (one begun twice), JUnit and generic attestations with and without attachments (one
 * attachment shared by two), an artifact reported and attested, a snapshot that deploys it, an
 * approval and its review, and a second flow.
 */
import { createHash } from 'node:crypto';

/** A call of the API: `form` as multipart (strings as fields, `{ content, name }` as files), `json` as a JSON body. */
export type StoryRequest = (
  method: string,
  path: string,
  options: { form?: Record<string, string | { content: string | Buffer; name: string }>; json?: unknown },
) => Promise<{ status: number; body: unknown }>;

/** `StoryRequest` over fetch, to the server at `url` with `token`. */
export function storyRequest(url: string, token: string): StoryRequest {
  return async (method, path, options) => {
    let body: FormData | string | undefined;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (options.form) {
      body = new FormData();
      for (const [name, value] of Object.entries(options.form)) {
        if (typeof value === 'string') body.append(name, value);
        else body.append(name, new Blob([value.content as Uint8Array<ArrayBuffer> | string]), value.name);
      }
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(url + path, { method, headers, body });
    const text = await response.text();
    return { status: response.status, body: text };
  };
}

export const storySha = (text: string) => createHash('sha256').update(text).digest('hex');
export const storyFingerprint = storySha('backend:1');
export const storyAttachments = {
  junit:
    '<testsuites><testsuite name="unit" tests="2" failures="0" errors="0" skipped="0" time="1.5"><testcase name="a"/><testcase name="b"/></testsuite></testsuites>\n',
  binary: Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256)),
};

/** Stores the story on `acme` (or `org`) through the API; throws on any answer but 2xx. */
export async function storeStory(request: StoryRequest, options: { org?: string } = {}): Promise<void> {
  const org = options.org ?? 'acme';
  const call = async (method: string, path: string, body: Parameters<StoryRequest>[2]) => {
    const res = await request(method, `/api/v2${path.replace('/acme', `/${org}`)}`, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  const begin = (flow: string, name: string, description: string) =>
    call('PUT', `/trails/acme/${flow}`, {
      form: {
        data_json: JSON.stringify({
          name,
          description,
          git_commit_info: { sha1: '1'.repeat(40), branch: 'main', author: 'Ada' },
          user_data: { ticket: 'T-1' },
        }),
      },
    });
  const attest = (
    flow: string,
    trail: string,
    kind: 'junit' | 'generic',
    data: Record<string, unknown>,
    attachment?: { content: string | Buffer; name: string },
  ) =>
    call('POST', `/attestations/acme/${flow}/trail/${trail}/${kind}`, {
      form: { data_json: JSON.stringify(data), ...(attachment ? { attachment_file: { content: attachment.content, name: attachment.name } } : {}) },
    });
  await begin('backend', 't1', 'first try');
  await begin('backend', 't1', 'second try'); // the trail's row changes: only this begin vouches for it now
  const suite = { name: 'unit', failures: 0, errors: 0, skipped: 0, total: 2, duration: 1.5, timestamp: 1_763_800_000 };
  await attest(
    'backend',
    't1',
    'junit',
    { attestation_name: 'unit-tests', junit_results: [suite], description: 'unit' },
    { content: storyAttachments.junit, name: 'junit.xml' },
  );
  await call('POST', '/artifacts/acme/backend', {
    json: {
      fingerprint: storyFingerprint,
      filename: 'backend:1',
      git_commit: '1'.repeat(40),
      git_commit_info: { sha1: '1'.repeat(40), branch: 'main', author: 'Ada', message: 'build', timestamp: 1_763_800_000 },
      build_url: 'https://ci.example.com/1',
      commit_url: 'https://git.example.com/c/1',
      repo_url: 'https://git.example.com/backend',
      template_reference_name: 'backend',
      trail_name: 't1',
      annotations: { team: 'core' },
    },
  });
  await attest(
    'backend',
    't1',
    'generic',
    { attestation_name: 'sbom', artifact_fingerprint: storyFingerprint, is_compliant: true, user_data: { tool: 'syft' } },
    { content: storyAttachments.binary, name: 'sbom.bin' },
  );
  await begin('backend', 't2', 'another');
  await attest('backend', 't2', 'generic', { attestation_name: 'review', is_compliant: false, description: 'no review' });
  await attest('backend', 't2', 'generic', { attestation_name: 'sbom', is_compliant: true }, { content: storyAttachments.binary, name: 'same-bytes.bin' });
  await begin('web', 'w1', 'web build');
  await attest('web', 'w1', 'generic', { attestation_name: 'lint', is_compliant: true });
  await call('PUT', '/environments/acme', { json: { name: 'production', type: 'K8S', description: 'Production cluster' } });
  await call('PUT', '/environments/acme/production/report/K8S', {
    json: { artifacts: [{ podName: 'pod-1', namespace: 'prod', digests: { 'backend:1': storyFingerprint }, creationTimestamp: 1_763_800_000 }] },
  });
  await call('POST', '/approvals/acme/backend', {
    json: { artifact_fingerprint: storyFingerprint, description: 'Release 1', src_commit_list: ['1'.repeat(40)], environment: 'production' },
  });
  await call('PUT', '/approvals/acme/backend/1', { json: { state: 'APPROVED', approved_by: 'Grace', comment: 'ship it' } });
}
