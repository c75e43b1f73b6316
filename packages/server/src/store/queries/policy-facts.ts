/**
 * What a policy is judged on, read in batches (domain/policy-facts.ts): every report of a set of
 * fingerprints in an organisation (optionally one flow) with its flow's tags and templates, and
 * the control each `decision` attestation of some trails decides. Bound lists are chunked below
 * SQLite's variable limit; both databases.
 */
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, jsonTextOf, type Db } from '../database.ts';
import { fromJson } from '../json.ts';
import { matchColumns, matchRowOf, type ArtifactMatchRow } from './artifact-matches.ts';
import { complianceFactsOfTrails } from './attestation-facts.ts';
import { findEnvironment } from './environments.ts';

/**
 * A report of a fingerprint as policies judge it and a snapshot shows its match: the columns
 * used, with its trail's template (else its flow's) and its flow's tags, and none of the JSON
 * fields or token of an `ArtifactRow` (a 1,000-pod snapshot reads hundreds).
 */
export interface PolicyArtifactRow extends ArtifactMatchRow {
  filename: string;
  templateReferenceName: string;
  effectiveTemplateSha256: string | null;
  flowTags: Record<string, string>;
}

/** Every report of `fingerprints` in the organisation (in the flow named `flow` if given), newest first. */
export async function policyArtifactRows(db: Db, organizationId: number, fingerprints: readonly string[], flow?: string): Promise<PolicyArtifactRow[]> {
  const out: PolicyArtifactRow[] = [];
  // The tags of each flow parsed once (a snapshot's hundreds of reports come from a few flows); the rows share them, and nothing changes them.
  const tagsOf = new Map<string, Record<string, string>>();
  for (const chunk of inListChunks([...new Set(fingerprints)])) {
    for (const r of await reportsOf(db, { organizationId, fingerprints: chunk, flow })) {
      let flowTags = tagsOf.get(r.flow_tags);
      if (flowTags === undefined) tagsOf.set(r.flow_tags, (flowTags = stringTags(fromJson(r.flow_tags, {}))));
      // The match's object given the other columns, not spread into a new one with them: the spread
      // was most of this loop's time (bench/results/snapjudge-2026-12-07.md).
      const row = matchRowOf(r) as PolicyArtifactRow;
      row.filename = r.filename;
      row.templateReferenceName = r.template_reference_name;
      row.effectiveTemplateSha256 = r.trail_template_sha256 ?? r.flow_template_sha256;
      row.flowTags = flowTags;
      out.push(row);
    }
  }
  return out.sort((x, y) => y.id - x.id);
}

// Compiled once per number of fingerprints and whether a flow is named: every assert asks it, and building it cost more than its statement.
const reportsOf = compiledOnce((db, v: { organizationId: number; fingerprints: string[]; flow?: string }) =>
  db
    .selectFrom('artifacts as r')
    .innerJoin('trails as t', 't.id', 'r.trail_id')
    .innerJoin('flows as f', 'f.id', 'r.flow_id')
    .select(matchColumns)
    .select([
      'r.filename',
      'r.template_reference_name',
      't.template_sha256 as trail_template_sha256',
      'f.template_sha256 as flow_template_sha256',
      'f.tags as flow_tags',
    ])
    .where('r.organization_id', '=', v.organizationId)
    .where('r.fingerprint', 'in', v.fingerprints)
    .$if(v.flow !== undefined, (q) => q.where('f.name', '=', v.flow!)),
);

/** A tags object with its string values (tags are strings; anything else is left out). */
const stringTags = (tags: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(tags && typeof tags === 'object' ? tags : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** Per `decision` attestation of these trails, the control it decides (its data's `control`, as `kosli attest decision` sends it). */
export async function decisionControlsOf(db: Db, trailIds: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const chunk of inListChunks([...new Set(trailIds)])) {
    for (const r of await controlsOf(db, { trailIds: chunk })) if (typeof r.control === 'string') out.set(Number(r.id), r.control);
  }
  return out;
}

// Compiled once per number of trails (as reportsOf).
const controlsOf = compiledOnce((db, v: { trailIds: number[] }) =>
  db
    .selectFrom('attestations')
    .select('id')
    .select(jsonTextOf(db, 'data', 'control').as('control'))
    .where('trail_id', 'in', v.trailIds)
    .where('type', '=', 'decision'),
);

/** Per `pull_request` attestation of `ids`, its data's `pull_requests` as stored (what `four-eyes` reads). */
export async function pullRequestsOf(db: Db, ids: readonly number[]): Promise<Map<number, unknown>> {
  const out = new Map<number, unknown>();
  for (const chunk of inListChunks([...new Set(ids)])) {
    const rows = await db.selectFrom('attestations').select(['id', 'data']).where('id', 'in', chunk).where('type', '=', 'pull_request').execute();
    for (const r of rows) out.set(Number(r.id), fromJson<{ pull_requests?: unknown }>(r.data, {}).pull_requests);
  }
  return out;
}

/** The latest version of a policy, as a verdict names it. */
export interface LatestPolicyVersion {
  /** The version's row (its chain record's `ref`). */
  id: number;
  name: string;
  version: number;
  yaml: string;
  sha256: string;
}

/** The latest version of each of the organisation's policies named (those that exist), in no particular order. */
export async function latestPolicyVersions(db: Db, organizationId: number, names: readonly string[]): Promise<LatestPolicyVersion[]> {
  const out: LatestPolicyVersion[] = [];
  for (const chunk of inListChunks([...new Set(names)])) {
    for (const r of await latestOf(db, { organizationId, names: chunk }))
      out.push({ id: Number(r.id), name: r.name, version: Number(r.version), yaml: r.policy_yaml, sha256: r.sha256 });
  }
  return out;
}

// Compiled once per number of names (as reportsOf).
const latestOf = compiledOnce((db, v: { organizationId: number; names: string[] }) =>
  db
    .selectFrom('policy_versions as v')
    .innerJoin('policies as p', 'p.id', 'v.policy_id')
    .select(['v.id', 'p.name', 'v.version', 'v.policy_yaml', 'v.sha256'])
    .where('p.organization_id', '=', v.organizationId)
    .where('p.name', 'in', v.names)
    .where((eb) =>
      eb(
        'v.version',
        '=',
        eb
          .selectFrom('policy_versions as w')
          .select((w) => w.fn.max('w.version').as('m'))
          .whereRef('w.policy_id', '=', 'p.id'),
      ),
    ),
);

/** What `assertReads` is asked: the fingerprint (in one flow), judged against an environment's policies or named ones. */
export interface AssertAsked {
  fingerprint: string;
  flow?: string;
  /** The environment whose attached policies judge it (read first; its policies are the names). */
  environment?: string;
  /** Named policies, when no environment is asked. */
  policies?: readonly string[];
}

/**
 * What `assert artifact` reads before it judges, in one read: the environment asked about (null
 * when it does not exist: nothing more is read), the fingerprint's reports (`policyArtifactRows`),
 * the latest versions of the policies (the environment's, else those named), their trails'
 * compliance facts (`complianceFactsOfTrails`) and the controls of the decisions among them
 * (`decisionControlsOf`, only for trails that hold one). On SQLite one message to a reader thread
 * runs every statement, where five calls left four of them on the event loop.
 */
export async function assertReads(db: Db, organizationId: number, orgName: string, ask: AssertAsked) {
  const environment = ask.environment === undefined ? undefined : ((await findEnvironment(db, organizationId, orgName, ask.environment)) ?? null);
  if (environment === null) return { environment, rows: [], versions: [], compliance: { facts: [], artifacts: [] }, controls: new Map<number, string>() };
  const names = environment ? environment.policies : ask.policies;
  const [rows, versions] = await Promise.all([
    policyArtifactRows(db, organizationId, [ask.fingerprint], ask.flow),
    names?.length ? latestPolicyVersions(db, organizationId, names) : Promise.resolve([]),
  ]);
  const compliance = await complianceFactsOfTrails(db, [...new Set(rows.map((r) => r.trailId))]);
  const deciding = [...new Set(compliance.facts.filter((f) => f.type === 'decision').map((f) => f.trailId))];
  const controls = deciding.length ? await decisionControlsOf(db, deciding) : new Map<number, string>();
  return { environment, rows, versions, compliance, controls };
}

export const reads = { policyArtifactRows, decisionControlsOf, pullRequestsOf, latestPolicyVersions, assertReads };
export const writes = {};
