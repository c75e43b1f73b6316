/**
 * What judging an artifact by policies worked out, by what it judged: the evaluations follow from
 * the policy versions and the artifact's facts, and its verdict from those and the records they
 * were read from, whose leaves never change once committed (artifacts, attestations and policy
 * versions have one leaf each). So a snapshot read again as it was judged evaluates and builds
 * nothing that did not change. A process's own memory, bounded by the characters of its keys and
 * a share per entry for what it holds.
 */
import type { GatheredPolicyFacts } from './policy-facts.ts';
import type { Verdict, VerdictEvaluation } from './verdict.ts';

export interface Worked {
  /** Each policy's evaluation, in order; undefined where it cannot vouch for the artifact. */
  evaluations: (VerdictEvaluation | undefined)[];
  /**
   * The verdict by the store it was built from committed records of (what a transaction read may
   * roll back): its records' leaves are that database's, where the evaluations hold wherever
   * the key's ids name the same records (`factsKey`).
   */
  verdicts?: WeakMap<object, Verdict>;
}

/** The verdict built from the committed records `store` reads, if one was kept. */
export const verdictIn = (w: Worked, store: object): Verdict | undefined => w.verdicts?.get(store);

/** Keeps `verdict`, built from the committed records `store` reads. */
export function keepVerdict(w: Worked, store: object, verdict: Verdict): void {
  (w.verdicts ??= new WeakMap()).set(store, verdict);
}

/** Each verdict's leaf by the store whose log holds it (a committed leaf never changes). */
const leaves = new WeakMap<Verdict, WeakMap<object, number>>();

/** The leaf of `verdict` in the log of `store`, if it was found or recorded there. */
export const leafIn = (verdict: Verdict, store: object): number | undefined => leaves.get(verdict)?.get(store);

/** Keeps the leaf of `verdict` as the log of `store` holds it (committed: found there, or recorded by a transaction that committed). */
export function keepLeaf(verdict: Verdict, store: object, leaf: number): void {
  let of = leaves.get(verdict);
  if (of === undefined) leaves.set(verdict, (of = new WeakMap()));
  of.set(store, leaf);
}

const worked = new Map<string, Worked>();
let heldCharacters = 0;
/** About three 1,000-pod snapshots judged: 600 to 1,000 entries each, their keys some hundreds of characters. */
const keptCharacters = 6_000_000;
/** What an entry counts for besides its key: its evaluations and verdict (a few kilobytes). */
const entryCharacters = 2_000;

/**
 * Whether `store` reads committed records only: a store that can begin a transaction is not one
 * (a transaction's queries have none), and a transaction's reads may roll back.
 */
export const readsCommitted = (store: object): boolean => 'transaction' in store;

/** What was asked, numbered: a snapshot's hundreds of keys share it, and each holds its number rather than its text. */
const askedNumbers = new Map<string, number>();
let askedNumbered = 0;
/** How many texts keep their number; past it the table starts again with new numbers (the keys of the old ones are then never matched, and age out). */
const askedKept = 10_000;

/** The part of the key that what is asked makes: the organisation, scope, environment, flow and policy versions (`policiesKey`). */
export function askedKey(o: { organizationId: number; scope: string; environment: string | null; flow: string | null; policies: string }): string {
  const text = `${o.organizationId}\n${o.scope}\n${o.environment ?? ''}\n${o.flow ?? ''}\n${o.policies}`;
  let n = askedNumbers.get(text);
  if (n === undefined) {
    if (askedNumbers.size >= askedKept) askedNumbers.clear();
    askedNumbers.set(text, (n = ++askedNumbered));
  }
  return `@${n}`;
}

/** The key of what is judged: every input of the evaluations and of the verdict but the leaves, which follow from the record ids. */
export function judgementKey(asked: string, artifact: { name: string; fingerprint: string }, facts: string): string {
  return `${asked}\n${artifact.name}\n${artifact.fingerprint}\n${facts}`;
}

/** The part of the key that the policy versions make, in the order they are evaluated. */
export function policiesKey(policies: readonly { id: number; name: string; version: number; sha256: string }[]): string {
  return JSON.stringify(policies.map((p) => [p.id, p.name, p.version, p.sha256]));
}

/**
 * An object's JSON, written once per object: policy-facts.ts shares one trail fact among the
 * reports of a trail, and one tags object among the rows of a flow.
 */
const jsonTexts = new WeakMap<object, string>();
const jsonOnce = (o: object): string => {
  let text = jsonTexts.get(o);
  if (text === undefined) jsonTexts.set(o, (text = JSON.stringify(o)));
  return text;
};

/** A number per store, for keys of its record ids (another database's ids name other records). */
const storeNumbers = new WeakMap<object, number>();
let storesNumbered = 0;
const storeNumber = (store: object): number => {
  let n = storeNumbers.get(store);
  if (n === undefined) storeNumbers.set(store, (n = ++storesNumbered));
  return n;
};

/**
 * The part of the key that a fingerprint's facts make, the same under each of its names.
 *
 * From a store that reads committed records: what the facts are built of rather than their text,
 * per report (newest first, as the trails come) the artifact's id, its trail's compliance now, its
 * flow's tags and the ids of the attestations that count for it, after the store's number. That
 * is every input of the facts: an artifact's id fixes its trail, flow, their names and its commit
 * (no such row is renamed, moved or deleted, and a committed id is never another record's); an
 * attestation never changes once stored, so its name, type, compliance, control and pull requests
 * follow from its id; the trail's compliance (its template, its attestations, the time) and the
 * flow's tags (`PATCH /tags`) can change, and are written out. Nothing of the facts is built or
 * serialised to make it (policy-facts.ts builds them when first read).
 *
 * From a transaction (whose ids may roll back and be another record's later): each trail fact's
 * JSON on a line (JSON has no raw line break), then the records' ids, which hold in any database.
 */
export function factsKey(store: object, gathered: GatheredPolicyFacts): string {
  if (!readsCommitted(store))
    return `=${gathered.facts.trails.map(jsonOnce).join('\n')}\n${JSON.stringify(gathered.reports.map((r) => [r.artifact.id, r.attestationIds]))}`;
  let key = `#${storeNumber(store)}\n`;
  for (const r of gathered.reports)
    key += `${r.artifact.id} ${r.compliance.is_compliant ? 1 : 0} ${r.attestationIds.join(',')} ${jsonOnce(r.artifact.flowTags)}\n`;
  return key;
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
  if (worked.delete(key)) heldCharacters -= key.length + entryCharacters;
  worked.set(key, w);
  heldCharacters += key.length + entryCharacters;
  while (heldCharacters > keptCharacters && worked.size > 1) {
    const oldest = worked.keys().next().value!;
    worked.delete(oldest);
    heldCharacters -= oldest.length + entryCharacters;
  }
}
