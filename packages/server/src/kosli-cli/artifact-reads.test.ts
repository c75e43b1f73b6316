// @database
/**
 * `kosli get artifact`, `kosli list artifacts` and `kosli search` as CLI v2.38 sends them and reads
 * the answers. Followed: cmd/kosli/getArtifact.go (`run`: url.JoinPath(host, "api/v2/artifacts",
 * org, flow, "fingerprint"|"commit_sha", id), `?trail=` only with --trail; `printArtifactsJsonAsTable`:
 * filename, flow_name, fingerprint, git_commit, commit_url, build_url, html_url and state asserted
 * as strings without a check, trail_name and template_reference_name when not nil, created_at
 * through formattedTimestamp, running[]/exited[] of {environment_name string, snapshot_index
 * float64}, history[] of {event, timestamp}), cmd/kosli/listArtifacts.go (`run`: page and per_page
 * always, flow_name or else repo_name, by url.Values.Encode; the table takes `git_commit[:7]`) and
 * cmd/kosli/search.go (`SearchResponse` decoded by json.Unmarshal: ints are Go ints, bools bools).
 * The artifacts are reported as `kosli attest artifact` sends them (attestArtifact.go's payload).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { goDecodeProblems, goQuery, goSliceTo, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** What the table printer of get artifact reads, and how. */
const placeAsRead: GoType = { environment_name: 'string', snapshot_index: 'float64' };
const artifactAsRead: GoType = {
  filename: 'string',
  flow_name: 'string',
  trail_name: 'string?',
  template_reference_name: 'string?',
  fingerprint: 'string',
  created_at: 'float64',
  git_commit: 'string',
  commit_url: 'string',
  build_url: 'string',
  html_url: 'string',
  state: 'string',
  running: [placeAsRead],
  exited: [placeAsRead],
  history: [{ event: 'string', timestamp: 'float64' }],
};
const listedAsRead: GoType = { git_commit: 'string', filename: 'string', fingerprint: 'string', state: 'string', created_at: 'float64' };
const matchesAsRead: GoType = { type: 'string', count: 'int', matches: ['string'] };
const searchAsRead: GoType = {
  resolved_to: { type: 'string', full_match: 'string', fingerprints: matchesAsRead, commits: matchesAsRead },
  artifacts: [
    {
      fingerprint: 'string',
      name: 'string',
      flow: 'string',
      git_commit: 'string',
      has_provenance: 'bool',
      commit_url: 'string',
      build_url: 'string',
      html_url: 'string',
      compliance_state: 'string',
      running_in: ['string'],
      exited_from: ['string'],
      history: [{ timestamp: 'float64' }],
    },
  ],
};

const template = `version: 1
trail:
  artifacts:
    - name: backend
      attestations:
        - name: unit-tests
          type: generic
`;

/** Two fingerprints that share their first 7 characters (and no other stored one does). */
const twinA = `abcdef0${sha256('twin-a').slice(7)}`;
const twinB = `abcdef0${sha256('twin-b').slice(7)}`;
const backend1 = sha256('backend:1');
const backend2 = sha256('backend:2');
const onlyRunning = sha256('sidecar:9');
const commitA = sha1('commit A');
const commitB = sha1('commit B');

describe('Kosli CLI wire format: get artifact, list artifacts, search', () => {
  let server: TestServer;
  const send = async (call: Omit<CliCall, 'token'> & { token?: string }, expected: number) => {
    const answer = await sendAsCli(server.url, { ...call, token: call.token ?? server.token });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    return answer;
  };
  const get = (path: string, expected = 200, token?: string) => send({ method: 'GET', path, token }, expected);

  /** `kosli attest artifact` with --name, --trail, --commit and the CI's URLs (AttestArtifactPayload). */
  const attestArtifact = async (flow: string, trail: string, a: { fingerprint: string; name: string; filename: string; commit: string; repo?: string }) => {
    const payload = {
      fingerprint: a.fingerprint,
      filename: a.filename,
      git_commit: a.commit,
      git_commit_info: { sha1: a.commit, message: 'Build it', author: 'Ann <ann@acme.example>', timestamp: 1_763_000_000, branch: 'main' },
      ...(a.repo ? { repo_info: { url: `https://github.com/${a.repo}`, name: a.repo, id: '712345678', provider: 'github' } } : {}),
      build_url: `https://ci.acme.example/${trail}`,
      commit_url: `https://github.com/acme/shop/commit/${a.commit}`,
      repo_url: '',
      template_reference_name: a.name,
      trail_name: trail,
    };
    const answer = await sendAsCli(server.url, { method: 'POST', path: `/api/v2/artifacts/acme/${flow}`, token: server.token, payload });
    expect(answer.status, answer.text).to.equal(201);
  };
  const beginTrail = (flow: string, trail: string) =>
    send({ method: 'PUT', path: `/api/v2/trails/acme/${flow}`, form: [{ type: 'field', name: 'data_json', content: { name: trail, description: '' } }] }, 201);
  const report = (env: string, digests: Record<string, string>) =>
    send(
      {
        method: 'PUT',
        path: `/api/v2/environments/acme/${env}/report/K8S`,
        payload: {
          artifacts: Object.entries(digests).map(([name, fp], i) => ({
            podName: `pod-${i}`,
            namespace: 'shop',
            digests: { [name]: fp },
            creationTimestamp: 1_763_000_000,
            owners: null,
          })),
        },
      },
      201,
    );

  before(async () => {
    server = await startTestServer();
    await send(
      {
        method: 'PUT',
        path: '/api/v2/flows/acme/template_file',
        form: [
          { type: 'field', name: 'data_json', content: { name: 'shop', description: 'The shop', visibility: 'private' } },
          { type: 'file', name: 'template_file', filename: 'template.yml', bytes: Buffer.from(template) },
        ],
      },
      201,
    );
    await beginTrail('shop', 'build-1');
    await beginTrail('shop', 'build-2');
    await beginTrail('api', 'api-1');
    await attestArtifact('shop', 'build-1', { fingerprint: backend1, name: 'backend', filename: 'shop:1', commit: commitA, repo: 'acme/shop' });
    await attestArtifact('shop', 'build-2', { fingerprint: backend2, name: 'backend', filename: 'shop:2', commit: commitB, repo: 'acme/shop' });
    await attestArtifact('shop', 'build-2', { fingerprint: twinA, name: 'backend', filename: 'twin-a', commit: commitB, repo: 'acme/shop' });
    await attestArtifact('api', 'api-1', { fingerprint: twinB, name: 'api', filename: 'twin-b', commit: commitA });
    // `--name backend.unit-tests` as the CLI sends it: build-1's backend attested (COMPLIANT), build-2's not (INCOMPLETE).
    await send(
      {
        method: 'POST',
        path: '/api/v2/attestations/acme/shop/trail/build-1/generic',
        form: [{ type: 'field', name: 'data_json', content: { attestation_name: 'unit-tests', target_artifacts: ['backend'], is_compliant: true } }],
      },
      201,
    );
    await send({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } }, 201);
    await send({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'beta', type: 'K8S', description: '', require_provenance: false } }, 201);
    await report('beta', { 'shop:1': backend1 });
    await report('prod', { 'shop:1': backend1, sidecar: onlyRunning });
    await report('beta', { 'shop:2': backend2 });
  });
  after(() => server.close());

  it('get artifact flow@fingerprint: every field the table reads, typed; its state, where it runs and ran, its history', async () => {
    const { json } = await get(`/api/v2/artifacts/acme/shop/fingerprint/${backend1}`);
    expect(goDecodeProblems(json, artifactAsRead)).to.deep.equal([]);
    expect(json).to.include({
      filename: 'shop:1',
      flow_name: 'shop',
      trail_name: 'build-1',
      template_reference_name: 'backend',
      git_commit: commitA,
      state: 'COMPLIANT',
    });
    expect(json.html_url).to.equal(`/ui/acme/flows/shop/artifacts/${backend1}`);
    expect(json.running).to.deep.equal([{ environment_name: 'prod', snapshot_index: 1 }]);
    expect(json.exited).to.deep.equal([{ environment_name: 'beta', snapshot_index: 2 }]);
    expect(json.history.map((e: { event: string }) => e.event)).to.deep.equal([
      'backend reported',
      'Started running in beta#1 environment',
      'Started running in prod#1 environment',
      'No longer running in beta#2 environment',
    ]);
    expect(json.log_index).to.be.a('number');
    const two = await get(`/api/v2/artifacts/acme/shop/fingerprint/${backend2}`);
    expect(two.json).to.include({ state: 'INCOMPLETE', trail_name: 'build-2' });
    expect(two.json.running).to.deep.equal([{ environment_name: 'beta', snapshot_index: 2 }]);
  });

  it('get artifact: a prefix of 7 finds the one fingerprint; of two, a 400 naming it; --trail narrows; unknown ones are 404s in Kosli words', async () => {
    expect((await get(`/api/v2/artifacts/acme/shop/fingerprint/${backend1.slice(0, 7)}`)).json.fingerprint).to.equal(backend1);
    // twinB is in another flow: in this flow the prefix is twinA's alone.
    expect((await get('/api/v2/artifacts/acme/shop/fingerprint/abcdef0')).json.fingerprint).to.equal(twinA);
    await attestArtifact('shop', 'build-1', { fingerprint: twinB, name: 'backend', filename: 'twin-b', commit: commitA });
    const ambiguous = await get('/api/v2/artifacts/acme/shop/fingerprint/abcdef0', 400);
    expect(ambiguous.json.message).to.contain("'abcdef0' is the start of 2 fingerprints");
    expect((await get(`/api/v2/artifacts/acme/shop/fingerprint/abcdef0?${goQuery([['trail', 'build-1']])}`)).json.fingerprint).to.equal(twinB);
    const missing = await get(`/api/v2/artifacts/acme/shop/fingerprint/${sha256('nothing')}`, 404);
    expect(missing.json.message).to.equal(`Artifact with fingerprint '${sha256('nothing')}' does not exist in flow 'shop' belonging to organization 'acme'`);
    expect((await get(`/api/v2/artifacts/acme/nowhere/fingerprint/${backend1}`, 404)).json.message).to.contain("'nowhere'");
    expect((await get(`/api/v2/artifacts/acme/shop/fingerprint/${backend1}?trail=build-9`, 404)).json.message).to.contain("'build-9'");
  });

  it('get artifact flow:commit: an array, newest first, full or prefix, --trail narrows', async () => {
    const { json } = await get(`/api/v2/artifacts/acme/shop/commit_sha/${commitB}`);
    expect(goDecodeProblems(json, [artifactAsRead])).to.deep.equal([]);
    expect(json.map((a: { fingerprint: string }) => a.fingerprint)).to.deep.equal([twinA, backend2]);
    expect((await get(`/api/v2/artifacts/acme/shop/commit_sha/${commitB.slice(0, 7)}`)).json).to.have.length(2);
    const inTrail = await get(`/api/v2/artifacts/acme/shop/commit_sha/${commitA}?trail=build-1`);
    expect(inTrail.json.map((a: { trail_name: string }) => a.trail_name)).to.deep.equal(['build-1', 'build-1']);
    await get(`/api/v2/artifacts/acme/shop/commit_sha/${sha1('never')}`, 404);
  });

  it('list artifacts: by flow or repository, newest first, paged; an empty flow is []; unknown flow or repository 404', async () => {
    const query = (values: Array<[string, string]>) => `/api/v2/artifacts/acme?${goQuery([['page', '1'], ['per_page', '15'], ...values])}`;
    const byFlow = await get(query([['flow_name', 'shop']]));
    expect(goDecodeProblems(byFlow.json, [listedAsRead])).to.deep.equal([]);
    expect(byFlow.json.map((a: { filename: string }) => a.filename)).to.deep.equal(['twin-b', 'twin-a', 'shop:2', 'shop:1']);
    // printArtifactsListAsTable's `git_commit.(string)[:7]`: every artifact has a commit (attest artifact requires one).
    for (const a of byFlow.json) expect(goSliceTo(a.git_commit, 7)).to.equal(a.git_commit.slice(0, 7));
    expect(() => goSliceTo('', 7)).to.throw('slice bounds out of range [:7] with length 0');
    const paged = await get(
      `/api/v2/artifacts/acme?${goQuery([
        ['page', '2'],
        ['per_page', '3'],
        ['flow_name', 'shop'],
      ])}`,
    );
    expect(paged.json.map((a: { filename: string }) => a.filename)).to.deep.equal(['shop:1']);
    expect((await get(query([['repo_name', 'acme/shop']]))).json).to.have.length(3);
    expect((await get(query([]))).json).to.have.length(5);
    await beginTrail('empty', 'e-1');
    expect((await get(query([['flow_name', 'empty']]))).json).to.deep.equal([]);
    expect((await get(query([['flow_name', 'nowhere']]), 404)).json.message).to.equal("Flow named 'nowhere' does not exist for organization 'acme'");
    expect((await get(query([['repo_name', 'acme/none']]), 404)).json.message).to.contain("Repo 'acme/none' not found");
  });

  it('search: a commit or a fingerprint, full or a prefix of 7, as search.go decodes it, with where each runs and ran', async () => {
    const byCommit = await get(`/api/v2/search/acme/sha/${commitA}`);
    expect(goDecodeProblems(byCommit.json, searchAsRead)).to.deep.equal([]);
    expect(byCommit.json.resolved_to).to.deep.include({ type: 'commit', full_match: commitA });
    const shop1 = byCommit.json.artifacts.find((a: { fingerprint: string }) => a.fingerprint === backend1);
    expect(shop1).to.include({ has_provenance: true, flow: 'shop', name: 'shop:1', compliance_state: 'COMPLIANT' });
    expect(shop1.running_in).to.deep.equal(['prod']);
    expect(shop1.exited_from).to.deep.equal(['beta']);

    const byFingerprint = await get(`/api/v2/search/acme/sha/${backend2.slice(0, 7)}`);
    expect(byFingerprint.json.resolved_to).to.deep.include({ type: 'fingerprint', full_match: backend2 });
    expect(byFingerprint.json.artifacts.map((a: { fingerprint: string }) => a.fingerprint)).to.deep.equal([backend2]);

    const twins = await get('/api/v2/search/acme/sha/abcdef0');
    expect(twins.json.resolved_to).to.deep.include({ type: 'multiple' });
    expect(twins.json.resolved_to.fingerprints).to.deep.include({ count: 2 });

    // Seen running, never reported: found, without provenance.
    const sidecar = await get(`/api/v2/search/acme/sha/${onlyRunning}`);
    expect(goDecodeProblems(sidecar.json, searchAsRead)).to.deep.equal([]);
    expect(sidecar.json.artifacts).to.have.length(1);
    expect(sidecar.json.artifacts[0]).to.include({ has_provenance: false, name: 'sidecar' });
    expect(sidecar.json.artifacts[0].running_in).to.deep.equal(['prod']);
  });

  it('hostile input: no match 404 in Kosli words; short, upper-case or non-hex 400 by field; another organisation sees nothing of it', async () => {
    const none = await get(`/api/v2/search/acme/sha/${sha1('nope')}`, 404);
    expect(none.json.message).to.equal(`No matches for '${sha1('nope')}'.`);
    for (const value of ['abcdef', 'ABCDEF01', 'abcdefg1', `${backend1}0`, "abc'%20or%201=1", '%2e%2e%2fabcdef0']) {
      const bad = await get(`/api/v2/search/acme/sha/${value}`, 400);
      expect(Object.keys(bad.json.errors), value).to.deep.equal(['path.search_value']);
      const badGet = await get(`/api/v2/artifacts/acme/shop/fingerprint/${value}`, 400);
      expect(Object.keys(badGet.json.errors), value).to.deep.equal(['path.fingerprint']);
    }
    // A token of another organisation: refused on acme's paths, and nothing of acme's under its own.
    await get(`/api/v2/search/acme/sha/${commitA}`, 403, server.otherToken);
    await get(`/api/v2/artifacts/acme/shop/fingerprint/${backend1}`, 403, server.otherToken);
    await send(
      {
        method: 'PUT',
        path: '/api/v2/environments/globex',
        payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false },
        token: server.otherToken,
      },
      201,
    );
    await get(`/api/v2/search/globex/sha/${commitA}`, 404, server.otherToken);
    await get(`/api/v2/search/globex/sha/${onlyRunning}`, 404, server.otherToken);
    expect((await get('/api/v2/artifacts/globex?page=1&per_page=15', 200, server.otherToken)).json).to.deep.equal([]);
    // Read tokens read.
    await get(`/api/v2/search/acme/sha/${commitA}`, 200, server.readToken);
  });

  /** One printer's reads, field by field: a field missing or of another type panics that table (or fails search's decoding). */
  const printers: Array<{ printer: string; path: string; pick: (json: any) => unknown[]; reads: Record<string, GoType> }> = [
    {
      printer: 'get artifact (printArtifactsJsonAsTable)',
      path: `/api/v2/artifacts/acme/shop/fingerprint/${backend1}`,
      pick: (json) => [json],
      reads: artifactAsRead as Record<string, GoType>,
    },
    {
      printer: 'get artifact by commit (an array)',
      path: `/api/v2/artifacts/acme/shop/commit_sha/${commitB}`,
      pick: (json) => json,
      reads: artifactAsRead as Record<string, GoType>,
    },
    {
      printer: 'list artifacts (printArtifactsListAsTable)',
      path: `/api/v2/artifacts/acme?${goQuery([
        ['page', '1'],
        ['per_page', '15'],
      ])}`,
      pick: (json) => json,
      reads: listedAsRead as Record<string, GoType>,
    },
    {
      printer: 'search (SearchResponse)',
      path: `/api/v2/search/acme/sha/${commitA}`,
      pick: (json) => json.artifacts,
      reads: (searchAsRead as { artifacts: Record<string, GoType>[] }).artifacts[0]!,
    },
  ];
  for (const { printer, path, pick, reads } of printers) {
    for (const [field, type] of Object.entries(reads)) {
      it(`${printer} reads \`${field}\` as ${JSON.stringify(type)}: present and of that type on every item`, async () => {
        const items = pick((await get(path)).json);
        expect(items).to.not.deep.equal([]);
        for (const item of items) expect(goDecodeProblems(item, { [field]: type }), field).to.deep.equal([]);
        // The check is no formality: the item without the field would not decode (unless the printer tests it for nil).
        const without = { ...(items[0] as object), [field]: undefined };
        const optional = typeof type === 'string' && type.endsWith('?');
        expect(goDecodeProblems(without, { [field]: type }).length > 0, field).to.equal(!optional);
      });
    }
  }
});
