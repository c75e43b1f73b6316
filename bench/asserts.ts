/**
 * `assert artifact` against three policies of ten rules each, in process on SQLite (no HTTP):
 *
 * - ours: the operation's work (facts gathered, three policies judged, the verdict looked up and
 *   recorded once per distinct verdict), 16 calls in flight;
 * - not recorded: the same without the verdict's lookup or write (the recording's cost);
 * - bare: the same SQL statements alone (the store's queries the assert runs), no judging, no verdict.
 *
 * In turns (each side in each round, each round starting with the next side), after a warm-up pass that records every verdict once.
 * Evidence is made through the store (chained and logged, as every verdict names log indexes):
 * 20,000 artifacts in 2,000 trails with 4 attestations each (2,000 artifacts with --quick).
 *
 *   node --import tsx bench/asserts.ts [--quick]      also `pnpm bench -- --only asserts`
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { openTestStore } from '@trailproof/server/testing';
import { assertArtifact } from '../packages/server/src/operations/assert-judgement.ts';
import { gatherPolicyFacts } from '../packages/server/src/domain/policy-facts.ts';
import { canonicalJson } from '../packages/server/src/store/queries/chain.ts';
import type { Store } from '../packages/server/src/store/types.ts';
import type { Figure } from './support/report.ts';

const fingerprintOf = (i: number) => i.toString(16).padStart(64, '0');
const header = '_schema: https://kosli.com/schemas/policy/environment/v1\n';
/** Ten rules: provenance, trail compliance, and eight attestation rules with `if`s and an exception. */
const policyYaml = (p: number) =>
  `${header}artifacts:\n  provenance:\n    required: true\n  trail-compliance:\n    required: true\n    exceptions:\n      - if: \${{ flow.name == "legacy-${p}" }}\n  attestations:\n${Array.from(
    { length: 8 },
    (_, i) =>
      `    - name: check-${i}\n      type: generic\n${i % 2 ? `      if: \${{ matches(artifact.name, "^app-[0-9]+$") and flow.tags.tier != "t${p}" }}\n` : ''}`,
  ).join('')}`;

/** What a seeded artifact's report leaves out. */
const unreported = {
  ...{ gitCommit: null, gitCommitInfo: null, repoInfo: null, repoUrl: null, externalUrls: null, annotations: null, createdBy: null },
  buildUrl: 'https://ci',
  commitUrl: 'https://git',
  at: 2,
};

async function seed(store: Store, org: number, trails: number, perTrail: number) {
  for (let t = 0; t < trails; t++) {
    const flow = `flow-${t % 20}`;
    const f = await store.ensureFlow(org, flow, 1);
    await store.upsertTrail(f.id, { name: `trail-${t}` }, null, 1, null);
    for (let a = 0; a < perTrail; a++) {
      const i = t * perTrail + a;
      const names = { fingerprint: fingerprintOf(i), filename: `app-${i}`, templateReferenceName: `app-${a}` };
      await store.transaction((tx) => tx.appendArtifact({ ...unreported, organizationId: org, flow, trail: `trail-${t}`, ...names }));
    }
    for (let k = 0; k < 4; k++)
      await store.appendAttestation({
        organizationId: org,
        flow,
        trail: `trail-${t}`,
        name: `check-${k}`,
        type: 'generic',
        dataJson: JSON.stringify({ target_artifacts: [`app-${k % perTrail}`] }),
        artifactFingerprint: null,
        attachment: null,
        compliant: k !== 3,
        createdBy: null,
        at: 3,
      });
  }
}

/** `work` with `inFlight` calls at a time for `seconds`: calls per second and the latency percentiles. */
async function measure(work: (i: number) => Promise<unknown>, inFlight: number, seconds: number) {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await work(next++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2));
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

export async function asserts(o: { quick: boolean }): Promise<Figure[]> {
  const [trails, perTrail, seconds, rounds] = o.quick ? [200, 10, 1, 3] : [2_000, 10, 3, 3];
  const { store, cleanup } = await openTestStore();
  try {
    const org = Number((await store.ensureOrganization('bench', 1)).id);
    const started = performance.now();
    await seed(store, org, trails, perTrail);
    for (let p = 0; p < 3; p++)
      await store.putPolicyVersion({
        organizationId: org,
        name: `policy-${p}`,
        description: '',
        type: 'env',
        comment: '',
        yaml: policyYaml(p),
        createdBy: null,
        at: 4,
      });
    console.error(
      `  seeded ${(trails * perTrail).toLocaleString('en')} artifacts in ${trails} trails in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const policies = ['policy-0', 'policy-1', 'policy-2'];
    const asserted = Math.min(trails * perTrail, 1_000);
    const request = (i: number) => ({ org: { id: org, name: 'bench' }, fingerprint: fingerprintOf((i * 7919) % asserted), policies });
    const at = { org: 'bench', apiBase: 'http://bench/api/v2' };
    // As the plugin keeps a verdict (operations/assert-artifact.ts).
    const recorded = async (_verdict: { compliant: boolean }, text: string, sha256: string) =>
      (await store.findVerdictLeaves(org, [sha256]))[0] ??
      store.transaction((tx) => tx.recordVerdict({ organizationId: org, fingerprint: '', verdict: text, sha256, compliant: false, createdBy: null, at: 5 }));
    const sides = {
      ours: (i: number) => assertArtifact(store, 10, at, request(i), recorded),
      'not recorded': (i: number) => assertArtifact(store, 10, at, request(i), async () => null),
      bare: async (i: number) => {
        const r = request(i);
        const [gathered, versions] = await Promise.all([gatherPolicyFacts(store, 10, org, [r.fingerprint]), store.latestPolicyVersions(org, policies)]);
        const g = gathered.get(r.fingerprint)!;
        await Promise.all([
          store.logIndexesOf(
            org,
            'artifacts',
            g.reports.map((x) => x.artifact.id),
          ),
          store.logIndexesOf(
            org,
            'attestations',
            g.reports.flatMap((x) => x.attestationIds),
          ),
          store.logIndexesOf(
            org,
            'policy_versions',
            versions.map((v) => v.id),
          ),
          store.findVerdictLeaf(org, canonicalJson({ i })),
        ]);
      },
    } as const;
    // Every verdict recorded once, then found once (steady state: a gate asserts what was judged before).
    for (let i = 0; i < 2 * asserted; i++) await sides.ours(i);
    const results: Record<keyof typeof sides, Array<Awaited<ReturnType<typeof measure>>>> = { ours: [], 'not recorded': [], bare: [] };
    const order = Object.entries(sides) as Array<[keyof typeof sides, (i: number) => Promise<unknown>]>;
    // Each round starts with another side, so that none always runs in the same place (first after the warm-up, or after the same other side).
    for (let round = 0; round < rounds; round++)
      for (const [name, work] of [...order.slice(round % order.length), ...order.slice(0, round % order.length)])
        results[name].push(await measure(work, 16, seconds));
    const mean = (name: keyof typeof sides, key: 'rps' | 'p50' | 'p99') => results[name].reduce((s, r) => s + r[key], 0) / rounds;
    const [ours, off, bare] = (['ours', 'not recorded', 'bare'] as const).map((n) => ({ rps: mean(n, 'rps'), p99: mean(n, 'p99') }));
    console.error(
      `  assert (3 policies x 10 rules): ${ours!.rps.toFixed(0)}/s p99 ${ours!.p99.toFixed(2)} ms; not recorded ${off!.rps.toFixed(0)}/s p99 ${off!.p99.toFixed(2)} ms; bare SQL ${bare!.rps.toFixed(0)}/s p99 ${bare!.p99.toFixed(2)} ms`,
    );
    const suite = 'asserts, SQLite, in process';
    const note = `${(trails * perTrail).toLocaleString('en')} artifacts, ${asserted} asserted in turn, 16 in flight, ${rounds} rounds of ${seconds} s`;
    const versus = (name: string, value: number, baseline: number, target: number, extra = '') => ({
      suite,
      name,
      value: Math.round(value),
      unit: 'calls/s',
      baseline: Math.round(baseline),
      ratio: Number((value / baseline).toFixed(2)),
      target: `>= ${target} of baseline`,
      pass: value / baseline >= target,
      note: note + extra,
    });
    return [
      {
        suite,
        name: 'assert artifact p99',
        value: Number(ours!.p99.toFixed(2)),
        unit: 'ms',
        baseline: null,
        ratio: null,
        target: '< 20 ms',
        pass: ours!.p99 < 20,
        note,
      },
      versus('assert artifact vs the same SQL alone', ours!.rps, bare!.rps, 0.7),
      versus('assert artifact recorded vs not recorded', ours!.rps, off!.rps, 0.95, '; recorded once per distinct verdict, then looked up'),
    ];
  } finally {
    await store.close();
    await cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  for (const f of await asserts({ quick: values.quick ?? false })) console.log(JSON.stringify(f));
}
