// @database
// @alone: bounds the time health takes to answer under hostile input
/**
 * The Kosli CLI's `attest snyk`, `attest sonar` and `attest jira`, byte for byte as it sends them
 * (kosli-dev/cli 71ac0f30: attestSnyk.go with internal/snyk/snyk.go, attestSonar.go with
 * internal/sonar/sonar.go, attestJira.go with internal/jira/jira.go; each `SnykAttestationPayload`,
 * `SonarAttestationPayload`, `JiraAttestationPayload` as multipart `data_json`, the SARIF file as
 * `attachment_file` unless `--upload-results=false`), with the verdicts the docs give
 * (getting_started/attestations.md: Snyk by whether vulnerabilities were found, Sonar by the quality
 * gate, Jira by whether the referenced issues exist), from fixtures in each tool's own format.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from '../../../../test/hostile/health-probe.ts';
import { commitInfo, goAttestationFields, repoInfoIn } from './ci-payloads.ts';
import { snykResultsOf, sonarResultsOf } from './cli-scanners.ts';
import { goDecodeProblems, sendAsCli, type GoFormItem, type GoType } from './go-wire.ts';

const sha = '3c1e0b9a7d6c5b4a3928170615f4e3d2c1b0a98f';
const sarif = (name: string) => readFileSync(new URL(`./fixtures/snyk/${name}`, import.meta.url));
const GoAttestation: GoType = goAttestationFields;

describe('Kosli CLI wire format: attest snyk, sonar and jira', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const common = (name: string) => ({ git_commit_info: commitInfo(sha, 'github'), repo_info: repoInfoIn('github'), attestation_name: name });
  const attest = (kind: string, payload: Record<string, unknown>, files: GoFormItem[] = [], trail = sha) =>
    sendAsCli(server.url, {
      method: 'POST',
      path: `/api/v2/attestations/acme/scans/trail/${trail}/${kind}`,
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: payload }, ...files],
    });
  const sarifFile = (name: string, bytes: Uint8Array = sarif(name)): GoFormItem => ({ type: 'file', name: 'attachment_file', filename: name, bytes });
  const stored = async () => new Map((await server.attestations('scans', sha)).map((a) => [a.name, a]));

  describe('attest snyk', () => {
    it('the port of ProcessSnykResultFile gives the counts the CLI’s own tests expect of its fixtures', () => {
      const counts = (name: string) => snykResultsOf(sarif(name).toString()).results.map((r) => [r.high_count, r.medium_count, r.low_count]);
      expect(counts('sarif-container.json')).to.deep.equal([
        [0, 0, 0],
        [2, 1, 0],
      ]);
      expect(counts('sarif-empty-container.json')).to.deep.equal([
        [0, 0, 0],
        [0, 0, 0],
      ]);
      expect(counts('sarif-iac.json')).to.deep.equal([[4, 9, 113]]);
    });

    it('compliant iff no run found a vulnerability; the SARIF file is the attachment, downloadable byte for byte; get attestation reads snyk_results back', async () => {
      for (const [name, file] of [
        ['container', 'sarif-container.json'],
        ['empty', 'sarif-empty-container.json'],
        ['iac', 'sarif-iac.json'],
      ] as const) {
        const answer = await attest('snyk', { ...common(name), snyk_results: snykResultsOf(sarif(file).toString()) }, [sarifFile(file)]);
        expect(answer.status, answer.text).to.equal(201);
      }
      // --upload-results=false: no attachment.
      const bare = await attest('snyk', { ...common('bare'), snyk_results: snykResultsOf(sarif('sarif-empty-container.json').toString()) });
      expect(bare.status, bare.text).to.equal(201);
      const byName = await stored();
      expect(['container', 'empty', 'iac', 'bare'].map((n) => [n, byName.get(n)!.type, byName.get(n)!.compliant])).to.deep.equal([
        ['container', 'snyk', false],
        ['empty', 'snyk', true],
        ['iac', 'snyk', false],
        ['bare', 'snyk', true],
      ]);
      const iac = byName.get('iac')!;
      expect(iac.attachmentName).to.equal('sarif-iac.json');
      expect(iac.attachmentSha256).to.equal(createHash('sha256').update(sarif('sarif-iac.json')).digest('hex'));
      const download = await sendAsCli(server.url, {
        method: 'GET',
        path: `/api/v2/trails/acme/scans/${sha}/attestations/${iac.id}/attachment`,
        token: server.token,
      });
      expect(download.status).to.equal(200);
      expect(download.bytes.equals(sarif('sarif-iac.json'))).to.equal(true);
      const read = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/attestations/acme/scans/trail/${sha}/container`, token: server.token });
      expect(read.status).to.equal(200);
      expect(goDecodeProblems(read.json, [GoAttestation])).to.deep.equal([]);
      expect(read.json[0].snyk_results.results[1]).to.deep.include({ high_count: 2, medium_count: 1, low_count: 0 });
      expect(read.json[0].snyk_results.results[1].high[0].id).to.match(/^SNYK-/);
    });

    it('refuses, with a health probe answering meanwhile: a SARIF over 10 MB, snyk_results nested past the bound, counts that are not counts (4xx, nothing stored)', async () => {
      const before = (await server.attestations('scans', sha)).length;
      const results = snykResultsOf(sarif('sarif-empty-container.json').toString());
      const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
      const { result, slowestMs } = await whileProbingHealth(server, () =>
        attest('snyk', { ...common('huge'), snyk_results: results }, [sarifFile('huge.json', huge)]),
      );
      expect(result.status, result.text).to.be.oneOf([400, 413]);
      expect(slowestMs).to.be.below(1000);
      let nested: unknown = 'x';
      for (let i = 0; i < 200; i++) nested = [nested];
      const deep = await whileProbingHealth(server, () =>
        attest('snyk', { ...common('deep'), snyk_results: { ...results, tool: { name: nested, version: '' } } }),
      );
      expect(deep.result.status, deep.result.text).to.equal(400);
      expect(deep.slowestMs).to.be.below(1000);
      const negative = await attest('snyk', {
        ...common('negative'),
        snyk_results: { ...results, results: [{ high_count: -1, medium_count: 0, low_count: 0 }] },
      });
      expect(negative.status).to.equal(400);
      expect(negative.json.errors).to.be.an('object');
      const missing = await attest('snyk', { ...common('missing') });
      expect(missing.status).to.equal(400);
      expect((await server.attestations('scans', sha)).length).to.equal(before);
    });
  });

  describe('attest sonar', () => {
    const task = {
      serverUrl: 'https://sonarcloud.io',
      taskId: 'AZK3x1',
      status: 'SUCCESS',
      analysedAt: '2026-11-30T10:00:00+0000',
      revision: sha,
      projectKey: 'acme_shop',
      branch: 'main',
    };
    // api/qualitygates/project_status answers, as SonarQube gives them.
    const passed = {
      projectStatus: {
        status: 'OK',
        conditions: [{ status: 'OK', metricKey: 'new_coverage', comparator: 'LT', errorThreshold: '80', actualValue: '91.2' }],
      },
    };
    const failed = {
      projectStatus: {
        status: 'ERROR',
        conditions: [
          { status: 'ERROR', metricKey: 'new_reliability_rating', comparator: 'GT', errorThreshold: '1', actualValue: '3' },
          { status: 'OK', metricKey: 'new_duplicated_lines_density', comparator: 'GT', errorThreshold: '3', actualValue: '0.0' },
        ],
      },
    };
    it('compliant iff the quality gate is OK (ERROR, NONE or no gate are not); get attestation reads sonar_results back', async () => {
      const cases: Array<[string, unknown]> = [
        ['sonar-ok', sonarResultsOf(task, passed)],
        ['sonar-error', sonarResultsOf(task, failed)],
        ['sonar-none', sonarResultsOf(task, { projectStatus: { status: 'NONE' } })],
        ['sonar-no-gate', { ...sonarResultsOf(task, passed), qualityGate: undefined }],
      ];
      for (const [name, results] of cases) {
        const answer = await attest('sonar', { ...common(name), sonar_results: results });
        expect(answer.status, answer.text).to.equal(201);
      }
      const byName = await stored();
      expect(cases.map(([n]) => byName.get(n)!.compliant)).to.deep.equal([true, false, false, false]);
      const read = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/attestations/acme/scans/trail/${sha}/sonar-error`, token: server.token });
      expect(goDecodeProblems(read.json, [GoAttestation])).to.deep.equal([]);
      expect(read.json[0].sonar_results.qualityGate.conditions[0]).to.deep.equal({
        metric: 'new_reliability_rating',
        errorThreshold: '1',
        operator: 'GT',
        value: '3',
        status: 'ERROR',
      });
      const wrong = await attest('sonar', { ...common('sonar-bad'), sonar_results: { ...sonarResultsOf(task, passed), qualityGate: { status: 'OK' } } });
      expect(wrong.status).to.equal(400);
    });
  });

  describe('attest jira', () => {
    const issue = (id: string, exists: boolean) => ({ issue_id: id, issue_url: `https://acme.atlassian.net/browse/${id}`, issue_exists: exists });
    it('compliant iff a reference was found and every issue exists; issue_fields kept as sent', async () => {
      const withFields = { ...issue('SHOP-42', true), issue_fields: { summary: 'Fix the cart', status: { name: 'In Progress', id: '3' } } };
      const cases: Array<[string, unknown[]]> = [
        ['jira-found', [withFields, issue('SHOP-43', true)]],
        ['jira-one-missing', [issue('SHOP-42', true), issue('NOTE-1', false)]],
        ['jira-none', []],
      ];
      for (const [name, results] of cases) {
        const answer = await attest('jira', { ...common(name), jira_results: results });
        expect(answer.status, answer.text).to.equal(201);
      }
      const byName = await stored();
      expect(cases.map(([n]) => byName.get(n)!.compliant)).to.deep.equal([true, false, false]);
      const read = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/attestations/acme/scans/trail/${sha}/jira-found`, token: server.token });
      expect(read.json[0].jira_results[0]).to.deep.equal(withFields);
      expect((await attest('jira', { ...common('jira-bad'), jira_results: [{ issue_id: 'X-1' }] })).status).to.equal(400);
    });

    it('another organisation’s token attests nothing to this one', async () => {
      const foreign = await sendAsCli(server.url, {
        method: 'POST',
        path: `/api/v2/attestations/acme/scans/trail/${sha}/jira`,
        token: server.otherToken,
        form: [{ type: 'field', name: 'data_json', content: { ...common('jira-foreign'), jira_results: [issue('SHOP-1', true)] } }],
      });
      expect(foreign.status).to.be.oneOf([401, 403]);
      expect((await stored()).has('jira-foreign')).to.equal(false);
    });
  });
});
