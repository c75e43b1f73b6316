// @database
// @alone: bounds the time health takes to answer under hostile input
/**
 * `kosli assert artifact` as the CLI sends it and reads the answer. Followed: cmd/kosli/
 * assertArtifact.go at 71ac0f30 (GET /api/v2/asserts/{org}/fingerprint/{fp} with `flow_name`,
 * `environment_name` and repeated `policy_name` in url.Values order; `compliant` read as a bool
 * unchecked, `scope`, `environment` in environment scope, `policy_evaluations[]` with
 * `rule_evaluations[]{ignored, satisfied, rule.definition, resolutions[]{type, context}}`,
 * `flows[]{flow, trail, compliance_status.attestations_statuses[]}`, `html_url` unchecked) and
 * its test suite (assertArtifact_test.go: the same setup, the same expectations, its testdata
 * policy files). `cliPrints` is the table printer's failure lines, ported line by line.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from '../../../../test/hostile/health-probe.ts';
import { verifyPackage } from '../audit/verify-package.ts';
import { opener, outcome, rewritePackage } from '../audit/package-fixture.ts';
import { canonicalJson } from '../store/queries/chain.ts';
import { goDecodeProblems, goQuery, type GoType, sendAsCli, type CliCall } from './go-wire.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/policy-files/${name}`, import.meta.url));
const fp = (c: string) => c.repeat(64);
const header = '_schema: https://kosli.com/schemas/policy/environment/v1\n';

/** What `run` and `printAssertAsTable` read without a check (a missing one panics the CLI). */
const assertAsRead: GoType = {
  compliant: 'bool',
  scope: 'string',
  html_url: 'string',
  policy_evaluations: [
    {
      policy_name: 'string',
      status: 'string',
      rule_evaluations: [{ ignored: 'bool', rule: { definition: 'map' }, resolutions: [{ type: 'string' }] }],
    },
  ],
  flows: [{ flow: 'string' }],
};

/** The failure lines `printAssertAsTable` prints for each non-compliant policy. */
function cliPrints(answer: any): string[] {
  const lines: string[] = [];
  for (const evaluation of answer.policy_evaluations ?? []) {
    if (evaluation.status === 'COMPLIANT') continue;
    for (const rule of evaluation.rule_evaluations) {
      if (rule.ignored || rule.satisfied) continue;
      const { name, type } = rule.rule.definition;
      for (const resolution of rule.resolutions) {
        const control = resolution.context?.for_control ?? '';
        if (resolution.type === 'missing_attestation')
          lines.push(
            control
              ? `artifact is missing required ${type} for control '${control}'`
              : `artifact is missing required '${name}' (type: ${type}) attestation in trail`,
          );
        if (resolution.type === 'non_compliant_attestation')
          lines.push(control ? `decision for control '${control}' is non-compliant in trail` : `attestation '${name}' is non-compliant in trail`);
        if (resolution.type === 'non_compliant_in_trail') lines.push('artifact is not compliant in trail');
      }
    }
  }
  return lines;
}

describe('Kosli CLI wire format: assert artifact', function () {
  this.timeout(120_000);
  let server: TestServer;
  const send = async (call: Omit<CliCall, 'token'>, expected: number, token = server.token) => {
    const answer = await sendAsCli(server.url, { token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    return answer;
  };
  /** The CLI's request: the path joined, then `?` and url.Values.Encode() when any flag is set. */
  const assert = async (fingerprint: string, o: { flow?: string; environment?: string; policies?: string[] } = {}, expected = 200, token?: string) => {
    const values: Array<[string, string]> = [];
    if (o.flow) values.push(['flow_name', o.flow]);
    if (o.environment) values.push(['environment_name', o.environment]);
    for (const p of o.policies ?? []) values.push(['policy_name', p]);
    const query = values.length ? `?${goQuery(values)}` : '';
    const answer = await send({ method: 'GET', path: `/api/v2/asserts/acme/fingerprint/${fingerprint}${query}` }, expected, token);
    if (expected === 200) expect(goDecodeProblems(answer.json, assertAsRead)).to.deep.equal([]);
    return answer.json;
  };
  const createPolicy = (name: string, bytes: Uint8Array) =>
    sendAsCli(server.url, {
      token: server.token,
      method: 'PUT',
      path: '/api/v2/policies/acme',
      form: [
        { type: 'field', name: 'payload', content: { name, description: '', comment: '', type: 'env' } },
        { type: 'file', name: 'policy_file', filename: `${name}.yml`, bytes },
      ],
    });
  const createEnv = (name: string) =>
    send({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name, type: 'server', description: '', require_provenance: false } }, 201);
  const attach = (env: string, policy: string) =>
    send({ method: 'POST', path: `/api/v2/environments/acme/${env}/policies`, payload: { policy_names: [policy] } }, 200);
  const beginTrail = (flow: string, trail: string) =>
    send({ method: 'PUT', path: `/api/v2/trails/acme/${flow}`, form: [{ type: 'field', name: 'data_json', content: { name: trail } }] }, 201);
  const attestArtifact = (flow: string, trail: string, fingerprint: string, name: string) =>
    send(
      {
        method: 'POST',
        path: `/api/v2/artifacts/acme/${flow}`,
        payload: {
          fingerprint,
          filename: name,
          git_commit: 'c'.repeat(40),
          build_url: 'https://ci/1',
          commit_url: 'https://git/c',
          template_reference_name: 'cli',
          trail_name: trail,
        },
      },
      201,
    );
  const attestGeneric = (flow: string, trail: string, name: string, compliant: boolean, fingerprint?: string) =>
    send(
      {
        method: 'POST',
        path: `/api/v2/attestations/acme/${flow}/trail/${trail}/generic`,
        form: [
          {
            type: 'field',
            name: 'data_json',
            content: { ...(fingerprint ? { artifact_fingerprint: fingerprint } : {}), attestation_name: name, is_compliant: compliant },
          },
        ],
      },
      201,
    );
  /** `kosli attest decision` has no endpoint here yet (controls): its attestation is stored as that command's payload would be. */
  const attestDecision = async (flow: string, trail: string, control: string, compliant: boolean) => {
    const org = await server.store.findOrganization('acme');
    await server.store.appendAttestation({
      organizationId: Number(org!.id),
      flow,
      trail,
      name: 'decision',
      type: 'decision',
      dataJson: JSON.stringify({ control, is_compliant: compliant }),
      artifactFingerprint: null,
      attachment: null,
      compliant,
      createdBy: null,
      at: 1_764_000_000,
    });
  };

  before(async () => {
    server = await startTestServer();
    // assertArtifact_test.go's SetupTest, flow by flow.
    for (const flow of ['assert-artifact-one', 'assert-artifact-two', 'assert-non-compliant-artifact', 'assert-artifact-control-flow'])
      await send({ method: 'PUT', path: '/api/v2/flows/acme', payload: { name: flow, description: '', visibility: 'private' } }, 201);
    await createEnv('assert-artifact-environment');
    for (const p of ['assert-artifact-policy-1', 'assert-artifact-policy-2']) expect((await createPolicy(p, fixture('test-policy.yml'))).status).to.equal(201);
    await beginTrail('assert-artifact-one', 't1');
    await attestArtifact('assert-artifact-one', 't1', fp('1'), 'arti-1');
    await attestArtifact('assert-artifact-one', 't1', fp('2'), 'arti-2');
    await beginTrail('assert-artifact-two', 't2');
    await attestArtifact('assert-artifact-two', 't2', fp('2'), 'arti-1');
    await beginTrail('assert-non-compliant-artifact', 'non-compliant-trail');
    await attestArtifact('assert-non-compliant-artifact', 'non-compliant-trail', fp('3'), 'arti-3');
    await attestGeneric('assert-non-compliant-artifact', 'non-compliant-trail', 'failing-attestation', false, fp('3'));
    expect((await createPolicy('assert-artifact-control-pol', fixture('test-policy-for-control.yml'))).status).to.equal(201);
    await createEnv('assert-artifact-control-env');
    await attach('assert-artifact-control-env', 'assert-artifact-control-pol');
    await beginTrail('assert-artifact-control-flow', 'no-decision');
    await attestArtifact('assert-artifact-control-flow', 'no-decision', fp('4'), 'arti-no-decision');
    await beginTrail('assert-artifact-control-flow', 'bad-decision');
    await attestArtifact('assert-artifact-control-flow', 'bad-decision', fp('5'), 'arti-bad-decision');
    await attestDecision('assert-artifact-control-flow', 'bad-decision', 'assert-artifact-ctl', false);
  });
  after(() => server.close());

  it("02: an artifact the flow does not have is a 404 with Kosli's words; without --flow, one no flow reported and no environment ran", async () => {
    const unknown = '8e568bd886069f1290def0caabc1e97ce0e7b80c105e611258b57d76fcef234c';
    const answer = await assert(unknown, { flow: 'assert-artifact-one' }, 404);
    expect(answer.message).to.equal(`Artifact with fingerprint '${unknown}' does not exist in flow 'assert-artifact-one' belonging to organization 'acme'`);
    expect((await assert(unknown, {}, 404)).message).to.equal(`Artifact with fingerprint '${unknown}' does not exist in organization 'acme'`);
    expect((await assert(unknown, { policies: ['assert-artifact-policy-1'] }, 404)).message).to.match(/does not exist in organization 'acme'/);
  });

  it('03, 04: against the flow templates: compliant, scope flow, one flow, the artifact page as html_url', async () => {
    const answer = await assert(fp('1'));
    expect([answer.compliant, answer.scope, answer.flows.length, answer.log_index]).to.deep.equal([true, 'flow', 1, null]);
    expect(answer.html_url).to.match(new RegExp(`/acme/flows/assert-artifact-one/artifacts/${fp('1')}$`));
    expect(answer.flows[0]).to.include({ flow: 'assert-artifact-one', trail: 't1' });
  });

  it("05, 06: against an environment with no policies attached: compliant (as the CLI's test expects), no evaluations", async () => {
    const answer = await assert(fp('1'), { environment: 'assert-artifact-environment' });
    expect([answer.compliant, answer.scope, answer.environment, answer.flows.length]).to.deep.equal([true, 'environment', 'assert-artifact-environment', 1]);
    expect(answer.policy_evaluations).to.deep.equal([]);
    const missing = await assert(fp('1'), { environment: 'non-existing' }, 404);
    expect(missing.message).to.equal("Environment named 'non-existing' does not exist for organization 'acme'");
  });

  it('07, 08, 11: against named policies, in the order given; each verdict a record with its log_index', async () => {
    const one = await assert(fp('1'), { policies: ['assert-artifact-policy-1'] });
    expect([one.compliant, one.scope, one.policy_evaluations.length]).to.deep.equal([true, 'policy', 1]);
    expect(one.policy_evaluations[0]).to.include({ policy_name: 'assert-artifact-policy-1', policy_version: 1, status: 'COMPLIANT' });
    expect(one.log_index).to.be.a('number');
    const two = await assert(fp('1'), { policies: ['assert-artifact-policy-2', 'assert-artifact-policy-1'] });
    expect(two.policy_evaluations.map((e: any) => e.policy_name)).to.deep.equal(['assert-artifact-policy-2', 'assert-artifact-policy-1']);
    expect(two.log_index).to.not.equal(one.log_index);
    // The same judgement of the same evidence is the same record: asserting again writes nothing.
    expect((await assert(fp('1'), { policies: ['assert-artifact-policy-1'] })).log_index).to.equal(one.log_index);
    expect((await assert(fp('1'), { policies: ['no-such'] }, 404)).message).to.equal("Policy 'no-such' does not exist in organization 'acme'");
    const verified = await server.request('GET', '/api/v2/verify/acme');
    expect(verified.body.ok, JSON.stringify(verified.body)).to.equal(true);
  });

  it('answers the JSON a value would be written as, members in order, the same bytes when the judgement is recalled', async () => {
    const path = `/api/v2/asserts/acme/fingerprint/${fp('5')}?environment_name=assert-artifact-control-env`;
    const [first, again] = [await send({ method: 'GET', path }, 200), await send({ method: 'GET', path }, 200)];
    expect(again.text).to.equal(first.text);
    expect(first.text).to.equal(JSON.stringify(first.json));
    const members = ['compliant', 'scope', 'environment', 'fingerprint', 'html_url', 'flows', 'policy_evaluations', 'log_index'];
    expect(Object.keys(first.json)).to.deep.equal(members);
  });

  it('12, 13: an artifact in two flows lists both, oldest first', async () => {
    const answer = await assert(fp('2'));
    expect(answer.flows.map((f: any) => f.flow)).to.deep.equal(['assert-artifact-one', 'assert-artifact-two']);
    expect(answer.html_url).to.match(new RegExp(`/assert-artifact-one/artifacts/${fp('2')}$`));
    expect((await assert(fp('2'), { flow: 'assert-artifact-two' })).flows.length).to.equal(1);
  });

  it('15: --environment with --policy is a 400 (the CLI refuses it before sending; a hand-made request is refused here)', async () => {
    const answer = await assert(fp('1'), { environment: 'assert-artifact-environment', policies: ['assert-artifact-policy-1'] }, 400);
    expect(answer.errors.environment_name).to.be.a('string');
  });

  it('16: a non-compliant artifact: NON-COMPLIANT in its flow, and against a trail-compliance policy with the reason the CLI prints', async () => {
    const flowScope = await assert(fp('3'));
    expect(flowScope.compliant).to.equal(false);
    const status = flowScope.flows[0].compliance_status;
    expect(status.attestations_statuses.map((s: any) => [s.attestation_name, s.is_compliant])).to.deep.equal([['failing-attestation', false]]);
    const policy = await assert(fp('3'), { policies: ['assert-artifact-policy-1'] });
    expect([policy.compliant, policy.policy_evaluations[0].status]).to.deep.equal([false, 'NON-COMPLIANT']);
    expect(cliPrints(policy)).to.deep.equal(['artifact is not compliant in trail']);
  });

  it('18, 19: for_control: a missing decision and a non-compliant one, named by control', async () => {
    const missing = await assert(fp('4'), { environment: 'assert-artifact-control-env' });
    expect(missing.compliant).to.equal(false);
    expect(cliPrints(missing)).to.deep.equal(["artifact is missing required decision for control 'assert-artifact-ctl'"]);
    const bad = await assert(fp('5'), { environment: 'assert-artifact-control-env' });
    expect(cliPrints(bad)).to.deep.equal(["decision for control 'assert-artifact-ctl' is non-compliant in trail"]);
  });

  it('a missing attestation, a non-compliant one, an `if` that does not apply, and an exception that waives a rule', async () => {
    const yaml = `${header}artifacts:
  trail-compliance:
    required: true
    exceptions:
      - if: \${{ flow.name == "assert-non-compliant-artifact" }}
  attestations:
    - name: sbom
      type: generic
    - name: failing-attestation
      type: generic
    - name: pen-test
      type: generic
      if: \${{ flow.tags.risk-level == "high" }}
`;
    expect((await createPolicy('rules', Buffer.from(yaml))).status).to.equal(201);
    const answer = await assert(fp('3'), { policies: ['rules'] });
    expect(answer.compliant).to.equal(false);
    expect(cliPrints(answer)).to.deep.equal([
      "artifact is missing required 'sbom' (type: generic) attestation in trail",
      "attestation 'failing-attestation' is non-compliant in trail",
    ]);
    const [, trail, , , penTest] = answer.policy_evaluations[0].rule_evaluations;
    expect(trail).to.deep.include({ ignored: true, satisfied: false });
    expect(trail.resolutions[0]).to.deep.equal({
      type: 'rule_not_applicable',
      context: { flow_name: 'assert-non-compliant-artifact', trail_name: 'non-compliant-trail', exception: 'flow.name == "assert-non-compliant-artifact"' },
    });
    expect(penTest.resolutions[0].type).to.equal('rule_not_applicable');
    // The flow's tags are read: once high risk, the pen test is required.
    await send(
      { method: 'PATCH', path: '/api/v2/tags/acme/flow/assert-non-compliant-artifact', payload: { set_tags: { 'risk-level': 'high' }, remove_tags: [] } },
      200,
    );
    expect(cliPrints(await assert(fp('3'), { policies: ['rules'] }))).to.include(
      "artifact is missing required 'pen-test' (type: generic) attestation in trail",
    );
    // Evidence made later changes the verdict, and the verdict is a new record.
    await attestGeneric('assert-non-compliant-artifact', 'non-compliant-trail', 'sbom', true, fp('3'));
    expect(cliPrints(await assert(fp('3'), { policies: ['rules'] }))).to.not.include(
      "artifact is missing required 'sbom' (type: generic) attestation in trail",
    );
  });

  it('no provenance: an artifact only an environment ran is judged (no_provenance), and an exception can waive it', async () => {
    await createEnv('runtime');
    const report = { type: 'server', artifacts: [{ digests: { 'datadog:7': fp('6') }, creationTimestamp: 1_763_000_000 }] };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/runtime/report/server', payload: report }, 201);
    const answer = await assert(fp('6'), { policies: ['assert-artifact-policy-1'] });
    expect([answer.compliant, answer.flows]).to.deep.equal([false, []]);
    expect(answer.policy_evaluations[0].rule_evaluations[0].resolutions).to.deep.equal([{ type: 'no_provenance', context: {} }]);
    const waived = `${header}artifacts:\n  provenance:\n    required: true\n    exceptions:\n      - if: \${{ artifact.fingerprint == "${fp('6')}" }}\n`;
    expect((await createPolicy('waived', Buffer.from(waived))).status).to.equal(201);
    expect((await assert(fp('6'), { policies: ['waived'] })).compliant).to.equal(true);
  });

  it("one organisation's token never reads another's verdicts", async () => {
    await assert(fp('1'), {}, 403, server.otherToken);
    await send({ method: 'GET', path: `/api/v2/asserts/globex/fingerprint/${fp('1')}` }, 404, server.otherToken);
    // A read token may assert (a CI gate); the verdict is still recorded.
    expect((await assert(fp('2'), { policies: ['assert-artifact-policy-1'] }, 200, server.readToken)).log_index).to.be.a('number');
  });

  describe('hostile policies: the server keeps answering while judging', () => {
    const cases: Array<[string, string]> = [
      [
        'a backtracking pattern',
        `${header}artifacts:\n  attestations:\n    - type: generic\n      name: x\n      if: \${{ matches(artifact.name, "^(a+)+(a+)+(a+)+$") }}\n`,
      ],
      [
        'a deep expression',
        `${header}artifacts:\n  provenance:\n    required: true\n    exceptions:\n      - if: \${{ ${'('.repeat(22)}artifact.name == "x"${')'.repeat(22)} }}\n`,
      ],
      [
        'many exceptions',
        `${header}artifacts:\n  provenance:\n    required: true\n    exceptions:\n${Array.from({ length: 100 }, (_, i) => `      - if: \${{ matches(flow.name, "^(x|y)*z${i}$") }}\n`).join('')}`,
      ],
    ];
    for (const [what, yaml] of cases) {
      it(`${what}: a verdict, health answering within 1 s`, async () => {
        const name = `hostile-${what.replaceAll(' ', '-')}`;
        const created = await createPolicy(name, Buffer.from(yaml));
        expect(created.status, created.text).to.equal(201);
        const { result, slowestMs } = await whileProbingHealth(server, () => assert(fp('1'), { policies: [name] }));
        expect(result.compliant).to.be.a('boolean');
        expect(slowestMs).to.be.below(1000);
      });
    }
  });
});

describe('assert verdicts re-derived offline by verify-package', function () {
  this.timeout(120_000);
  let server: TestServer;
  const cli = (call: Omit<CliCall, 'token'>) => sendAsCli(server.url, { token: server.token, ...call });
  const policyV1 = `${header}artifacts:\n  attestations:\n    - name: unit\n      type: generic\n`;
  const policyV2 = `${header}artifacts:\n  attestations:\n    - name: unit\n      type: generic\n    - name: sbom\n      type: generic\n`;
  const putPolicy = (yaml: string) =>
    cli({
      method: 'PUT',
      path: '/api/v2/policies/acme',
      form: [
        { type: 'field', name: 'payload', content: { name: 'gate', description: '', comment: '', type: 'env' } },
        { type: 'file', name: 'policy_file', filename: 'gate.yml', bytes: Buffer.from(yaml) },
      ],
    });
  const assert = async (fingerprint: string) => (await cli({ method: 'GET', path: `/api/v2/asserts/acme/fingerprint/${fingerprint}?policy_name=gate` })).json;
  const exported = async () => {
    await server.store.makeCheckpoints!();
    const bytes = Buffer.from((await server.request('GET', '/api/v2/log/acme/export', { token: server.readToken })).bytes);
    const key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key as string;
    return { bytes, key };
  };
  /** Each verdict.json of a package, by leaf index. */
  const verdictsIn = async (bytes: Buffer) => {
    const found = new Map<number, any>();
    await rewritePackage(bytes, (name, content) => {
      const m = /^records\/(\d+)\/verdict\.json$/.exec(name);
      if (m) found.set(Number(m[1]), JSON.parse(content.toString('utf8')));
      return content;
    });
    return found;
  };
  /** A verdict written to the log as the server writes one: what a forger with the server's database writes. */
  const forge = async (verdict: unknown) => {
    const org = await server.store.findOrganization('acme');
    const text = canonicalJson(verdict);
    return server.store.transaction((tx) =>
      tx.recordVerdict({
        organizationId: Number(org!.id),
        fingerprint: fp('a'),
        verdict: text,
        compliant: (verdict as any).compliant,
        createdBy: null,
        at: 1_764_000_000,
      }),
    );
  };

  beforeEach(async () => {
    server = await startTestServer();
    await cli({ method: 'PUT', path: '/api/v2/trails/acme/app', form: [{ type: 'field', name: 'data_json', content: { name: 't1' } }] });
    for (const [f, name] of [
      [fp('a'), 'app-a'],
      [fp('b'), 'app-b'],
    ] as const)
      await cli({
        method: 'POST',
        path: '/api/v2/artifacts/acme/app',
        payload: {
          fingerprint: f,
          filename: name,
          git_commit: 'c'.repeat(40),
          build_url: 'https://ci/1',
          commit_url: 'https://git/c',
          template_reference_name: name,
          trail_name: 't1',
        },
      });
    await cli({
      method: 'POST',
      path: '/api/v2/attestations/acme/app/trail/t1/generic',
      form: [{ type: 'field', name: 'data_json', content: { artifact_fingerprint: fp('a'), attestation_name: 'unit', is_compliant: true } }],
    });
    expect((await putPolicy(policyV1)).status).to.equal(201);
  });
  afterEach(() => server.close());

  it('an honest package: every verdict, compliant or not, follows from the policy YAML and the records it names', async () => {
    expect((await assert(fp('a'))).compliant).to.equal(true);
    expect((await assert(fp('b'))).compliant).to.equal(false);
    const { bytes, key } = await exported();
    const verified = await verifyPackage(opener(bytes), key);
    expect([verified.verdicts, verified.completeness.proven]).to.deep.equal([2, true]);
    const [verdict] = [...(await verdictsIn(bytes)).values()];
    expect(verdict.verdict.inputs.attestations).to.have.length(1);
    expect(verdict.verdict.policies[0]).to.include({ name: 'gate', version: 1 });
  });

  it('a verdict with its result flipped is named, though the server signed it', async () => {
    const honest = await assert(fp('a'));
    const { bytes } = await exported();
    const verdict = (await verdictsIn(bytes)).get(honest.log_index)!.verdict;
    const flipped = {
      ...verdict,
      compliant: false,
      policy_evaluations: verdict.policy_evaluations.map((e: any) => ({ ...e, compliant: false, status: 'NON-COMPLIANT' })),
    };
    const forged = await forge(flipped);
    const again = await exported();
    expect(await outcome(again.bytes, again.key)).to.equal(`verdict-mismatch records/${forged}/row.json`);
    const error = await verifyPackage(opener(again.bytes), again.key).catch((e) => e);
    expect(error.message).to.match(
      new RegExp(`verdict ${forged} does not follow from its evidence: its result is non-compliant, its evidence gives compliant`),
    );
    expect(error.message).to.not.match(new RegExp(`verdict ${honest.log_index} `));
  });

  it('a policy changed after the verdict: the old verdict still names (and follows from) v1; one claiming v2 for what v1 judged is named', async () => {
    const before = await assert(fp('a'));
    expect((await putPolicy(policyV2)).status).to.equal(200);
    const after = await assert(fp('a'));
    expect([before.compliant, after.compliant, after.policy_evaluations[0].policy_version]).to.deep.equal([true, false, 2]);
    const { bytes, key } = await exported();
    expect(await outcome(bytes, key)).to.equal('verified');
    const verdicts = await verdictsIn(bytes);
    const v1 = verdicts.get(before.log_index)!.verdict;
    const v2 = verdicts.get(after.log_index)!.verdict;
    // v1's judgement presented as made under v2 (the version the package holds for it now).
    const claimed = { ...v1, policies: v2.policies, inputs: { ...v1.inputs, policy_versions: v2.inputs.policy_versions } };
    const forged = await forge(claimed);
    const again = await exported();
    expect(await outcome(again.bytes, again.key)).to.equal(`verdict-mismatch records/${forged}/row.json`);
    const error = await verifyPackage(opener(again.bytes), again.key).catch((e) => e);
    expect(error.message).to.match(
      new RegExp(`verdict ${forged} does not follow from its evidence: its result is compliant, its evidence gives non-compliant`),
    );
  });

  it('an input record removed from the package: the verdict that read it is named, before the gap is', async () => {
    const honest = await assert(fp('a'));
    const { bytes, key } = await exported();
    const attestation = (await verdictsIn(bytes)).get(honest.log_index)!.verdict.inputs.attestations[0];
    const removed = await rewritePackage(bytes, (name, content) => (name.startsWith(`records/${attestation}/`) ? undefined : content));
    expect(await outcome(removed, key)).to.equal(`verdict-mismatch records/${honest.log_index}/row.json`);
    const error = await verifyPackage(opener(removed), key).catch((e) => e);
    expect(error.message).to.match(new RegExp(`attestation 'unit' in trail 't1' of flow 'app' is record ${attestation}, which the package does not hold`));
  });
});
