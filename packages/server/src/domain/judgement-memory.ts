/**
 * What judging an artifact by policies worked out, by what it judged: the evaluations follow from
 * the policy versions and the artifact's facts, and its verdict from those and the records they
 * were read from, whose leaves never change once committed (artifacts, attestations and policy
 * versions have one leaf each). So a snapshot read again as it was judged evaluates and builds
 * nothing that did not change. A process's own memory, bounded by the characters of its keys.
 */
import type { GatheredPolicyFacts } from './policy-facts.ts';
import type { Verdict, VerdictEvaluation } from './verdict.ts';

export interface Worked {
  /** Each policy's evaluation, in order; undefined where it cannot vouch for the artifact. */
  evaluations: (VerdictEvaluation | undefined)[];
  /**
   * The verdict by the store it was built from committed records of (what a transaction read may
   * roll back): its records' leaves are that database's, where the evaluations hold anywhere.
   */
  verdicts?: WeakMap<object, Verdict>;
  /** The verdict's leaf by the store whose log holds it (a committed leaf never changes). */
  leaves?: WeakMap<object, number>;
}

/** The verdict built from the committed records `store` reads, if one was kept. */
export const verdictIn = (w: Worked, store: object): Verdict | undefined => w.verdicts?.get(store);

/** Keeps `verdict`, built from the committed records `store` reads. */
export function keepVerdict(w: Worked, store: object, verdict: Verdict): void {
  (w.verdicts ??= new WeakMap()).set(store, verdict);
}

/** The leaf of the verdict kept for `store`, if it was recorded there. */
export const leafIn = (w: Worked, store: object): number | undefined => w.leaves?.get(store);

/** Keeps the leaf of the verdict kept for `store`, as its log holds it. */
export function keepLeaf(w: Worked, store: object, leaf: number): void {
  (w.leaves ??= new WeakMap()).set(store, leaf);
}

const worked = new Map<string, Worked>();
let heldCharacters = 0;
/** About three 1,000-pod snapshots judged (their keys run to some 1.8 million characters each). */
const keptCharacters = 6_000_000;

/** The key of what is judged: every input of the evaluations and of the verdict but the leaves, which follow from the record ids. */
export function judgementKey(
  o: {
    organizationId: number;
    scope: string;
    environment: string | null;
    flow: string | null;
    policies: string;
    artifact: { name: string; fingerprint: string };
  },
  facts: string,
): string {
  return `${o.organizationId}\n${o.scope}\n${o.environment ?? ''}\n${o.flow ?? ''}\n${o.policies}\n${o.artifact.name}\n${o.artifact.fingerprint}\n${facts}`;
}

/** The part of the key that the policy versions make, in the order they are evaluated. */
export function policiesKey(policies: readonly { id: number; name: string; version: number; sha256: string }[]): string {
  return JSON.stringify(policies.map((p) => [p.id, p.name, p.version, p.sha256]));
}

/** Each trail fact's JSON, written once per fact (policy-facts.ts shares one among the reports of a trail). */
const factTexts = new WeakMap<object, string>();
const factText = (t: object): string => {
  let text = factTexts.get(t);
  if (text === undefined) factTexts.set(t, (text = JSON.stringify(t)));
  return text;
};

/**
 * The part of the key that a fingerprint's facts make, the same under each of its names: each
 * trail fact's JSON on a line (JSON has no raw line break), then the records' ids.
 */
export function factsKey(gathered: GatheredPolicyFacts): string {
  return `${gathered.facts.trails.map(factText).join('\n')}\n${JSON.stringify(gathered.reports.map((r) => [r.artifact.id, r.attestationIds]))}`;
}

/** What was worked out under `key`, the most recently used kept longest. */
export function recall(key: string): Worked | undefined {
  const known = worked.get(key);
  if (known !== undefined) {
    worked.delete(key);
    worked.set(key, known);
  }
  return known;
}

/** Keeps `w` under `key`, dropping the least recently used beyond the bound. */
export function keep(key: string, w: Worked): void {
  if (worked.delete(key)) heldCharacters -= key.length;
  worked.set(key, w);
  heldCharacters += key.length;
  while (heldCharacters > keptCharacters && worked.size > 1) {
    const oldest = worked.keys().next().value!;
    worked.delete(oldest);
    heldCharacters -= oldest.length;
  }
}
