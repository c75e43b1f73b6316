/**
 * Exports an organisation's evidence as an audit package: its log's leaves up to the latest
 * signed checkpoint, a page at a time, each with its inclusion proof and, where it vouches for a
 * row, that row and the evidence as the API shows it, and the attachments byte for byte. The
 * selection (flow, trail, time) picks leaves; nothing is held beyond one page of them.
 */
import type { Writable } from 'node:stream';
import { createdByName } from '../domain/created-by.ts';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { attestationView, trailSummary } from '../http/views/trails.ts';
import { environmentHref, trailHref, type ViewContext } from '../http/links.ts';
import { approvalFields } from '../http/views/approvals.ts';
import { artifactView } from '../http/views/artifacts.ts';
import { tableOf } from '../store/queries/chain.ts';
import type { StoreUses } from '../store/types.ts';
import { parseCheckpoint, parseNote, toBase64 } from '../transparency/index.ts';
import { LEAF_LIST_PART, type LeafType, type Manifest, PACKAGE_FORMAT, type Selection, viewFileOf } from './package-format.ts';
import { approvalOf, inSelection, isWholeLog } from './package-selection.ts';
import { type LeafListPart, type PackageRecord, writePackage } from './write-package.ts';

/** What an export reads of the organisation's log (the store's log queries, or a test's tree). */
export interface AuditLog {
  /** The signed checkpoint the package proves against, and its tree size. */
  readonly checkpoint: string;
  readonly verifierKey: string;
  /** Up to `limit` leaves from index `from` on, in order. */
  leaves(from: number, limit: number): Promise<ReadonlyArray<{ index: number; leaf: string }>>;
  inclusionProof(index: number, size: number): Promise<Buffer[]>;
  /** The latest leaf index naming each of these trails. */
  latestBegins(trailIds: readonly number[]): Promise<Map<number, number>>;
}

/** The queries an export uses, for a plugin's `store` list. */
export const exportPackageUses = [
  'auditRows',
  'auditAttestations',
  'auditSnapshotPlaces',
  'auditApprovalPlaces',
  'auditTokenDescriptions',
  'getBlob',
  'getSnapshot',
  'getApproval',
  'getTrailById',
  'listAttestations',
  'attestationFactsOfTrails',
  'approvalLogIndexes',
  'artifactsOfTrails',
  'complianceFactsOfTrails',
  'artifactsByIds',
] as const;
type ExportStore = StoreUses<typeof exportPackageUses>;

export interface ExportOptions {
  readonly organization: string;
  readonly organizationId: number;
  readonly selection: Selection;
  /** Where the views' links point (the API's base URL, `/api/v2` for a package made offline). */
  readonly apiBase: string;
  readonly now?: number;
  /** Leaves read per query (default 500). */
  readonly pageSize?: number;
}

interface Leaf {
  index: number;
  text: string;
  type: LeafType;
  at: number;
  ref?: { table: string; id: number };
  data: Record<string, any>;
}

/** Writes the package to `out`; resolves with what it holds. */
export async function exportPackage(
  store: ExportStore,
  log: AuditLog,
  out: Writable,
  options: ExportOptions,
): Promise<{ records: number; attachments: number }> {
  const checkpoint = parseCheckpoint(parseNote(log.checkpoint).text);
  const now = options.now ?? Date.now() / 1000;
  const manifest: Manifest = {
    format: PACKAGE_FORMAT,
    organization: options.organization,
    origin: checkpoint.origin,
    tree_size: checkpoint.size,
    root_hash: toBase64(checkpoint.rootHash),
    selection: options.selection,
    exported_at: Math.floor(now),
  };
  return writePackage(out, { manifest, checkpoint: log.checkpoint, verifierKey: log.verifierKey, records: records(store, log, checkpoint.size, options, now) });
}

async function* records(store: ExportStore, log: AuditLog, size: number, options: ExportOptions, now: number): AsyncGenerator<PackageRecord | LeafListPart> {
  const at: ViewContext = { org: options.organization, apiBase: options.apiBase };
  const pageSize = options.pageSize ?? 500;
  // A selection's package lists every leaf, so that the verifier sees which ones the selection picks.
  const listed = !isWholeLog(options.selection);
  let listing: Buffer[] = [];
  // A review's flow is its approval's, as the approval's leaf names it (an earlier leaf).
  const approvalFlows = new Map<number, string>();
  for (let from = 0; from < size; from += pageSize) {
    const page = await log.leaves(from, Math.min(pageSize, size - from));
    if (page.length !== Math.min(pageSize, size - from) || page.some((leaf, i) => leaf.index !== from + i))
      throw new Error(`the log's leaves from ${from} are not all there: the store's log is broken (trailproof verify names it)`);
    for (const leaf of listed ? page : []) {
      listing.push(Buffer.from(leaf.leaf, 'utf8'));
      if (listing.length === LEAF_LIST_PART || leaf.index === size - 1) {
        yield { leafList: { start: leaf.index + 1 - listing.length, leaves: listing } };
        listing = [];
      }
    }
    const leaves = page.map(readLeaf).filter((leaf) => leaf !== undefined);
    const chosen = leaves.filter((leaf) => {
      const approval = approvalOf(leaf);
      if (approval) approvalFlows.set(approval.id, approval.flow);
      return inSelection(leaf, options.selection, (id) => approvalFlows.get(id));
    });
    const ids = (type: LeafType) => chosen.filter((l) => l.type === type && l.ref).map((l) => l.ref!.id);
    const [trails, attestations, artifacts, snapshots, approvals, reviews, policyVersions, verdicts] = await Promise.all(
      (['trail.begin', 'attestation', 'artifact', 'snapshot', 'approval', 'review', 'policy.version', 'verdict'] as const).map((type) =>
        store.auditRows(tableOf[type], ids(type)),
      ),
    );
    const rows = {
      'trail.begin': trails!,
      attestation: attestations!,
      artifact: artifacts!,
      snapshot: snapshots!,
      approval: approvals!,
      review: reviews!,
      'policy.version': policyVersions!,
      verdict: verdicts!,
    };
    const latestBegins = await log.latestBegins(ids('trail.begin'));
    const views = await viewsOf(
      store,
      chosen,
      {
        attestations: ids('attestation'),
        artifacts: ids('artifact'),
        snapshots: ids('snapshot'),
        approvals: ids('approval'),
        reviews: rows.review,
        policyVersions: rows['policy.version'],
        verdicts: rows.verdict,
      },
      at,
      now,
      options.organizationId,
    );
    for (const leaf of chosen) {
      const proof = await log.inclusionProof(leaf.index, size);
      const row = leaf.ref ? rows[leaf.type].get(leaf.ref.id) : undefined;
      // A package cannot hold a row that is gone; one without it would hide that it is gone.
      if (leaf.ref && !row)
        throw new Error(
          `leaf ${leaf.index} vouches for ${leaf.ref.table}#${leaf.ref.id}, which the database no longer holds: evidence was removed behind the server's back (trailproof verify names it)`,
        );
      // A trail's row is vouched for by its latest begin only (each begin may change it); earlier ones prove themselves alone.
      const current = row && (leaf.type !== 'trail.begin' || latestBegins.get(leaf.ref!.id) === leaf.index);
      if (!current) {
        yield { index: leaf.index, leaf: Buffer.from(leaf.text, 'utf8'), proof };
        continue;
      }
      const view = await views(leaf);
      const sha256 = leaf.type === 'attestation' ? (row.attachment_sha256 as string | null) : null;
      yield {
        index: leaf.index,
        leaf: Buffer.from(leaf.text, 'utf8'),
        proof,
        row,
        view: { type: leaf.type, body: view.body },
        ...(view.deployments ? { deployments: view.deployments } : {}),
        ...(sha256 ? { attachment: { sha256, size: view.attachmentSize ?? 0, open: async () => (await store.getBlob(sha256))!.content } } : {}),
      };
    }
  }
}

function readLeaf({ index, leaf }: { index: number; leaf: string }): Leaf | undefined {
  const record = JSON.parse(leaf) as Record<string, any>;
  if (!(record.type in viewFileOf)) return undefined;
  const ref = record.ref && typeof record.ref.id === 'number' ? { table: String(record.ref.table), id: record.ref.id as number } : undefined;
  return { index, text: leaf, type: record.type as LeafType, at: Number(record.at), ref, data: record.data ?? {} };
}

interface View {
  body: unknown;
  deployments?: unknown[];
  attachmentSize?: number;
}

/** The API's view of each chosen leaf's evidence, read for the page at once where a query allows. */
async function viewsOf(
  store: ExportStore,
  _chosen: Leaf[],
  ids: {
    attestations: number[];
    artifacts: number[];
    snapshots: number[];
    approvals: number[];
    reviews: Map<number, Record<string, unknown>>;
    policyVersions: Map<number, Record<string, unknown>>;
    verdicts: Map<number, Record<string, unknown>>;
  },
  at: ViewContext,
  now: number,
  organizationId: number,
): Promise<(leaf: Leaf) => Promise<View>> {
  const [attestations, artifacts, snapshotPlaces, approvalPlaces, tokens] = await Promise.all([
    store.auditAttestations(ids.attestations),
    store.artifactsByIds(ids.artifacts),
    store.auditSnapshotPlaces(ids.snapshots),
    store.auditApprovalPlaces(ids.approvals),
    store.auditTokenDescriptions(
      [...ids.reviews.values(), ...ids.policyVersions.values()].flatMap((r) => (typeof r.created_by_token === 'string' ? [r.created_by_token] : [])),
    ),
  ]);
  const evaluator = new TrailEvaluator(store, now);
  return async (leaf) => {
    const id = leaf.ref!.id;
    switch (leaf.type) {
      case 'trail.begin': {
        const trail = (await store.getTrailById(id))!;
        return { body: { ...trailSummary(trail, await evaluator.evaluate(trail, { offset: 0, limit: 0 }), at), log_index: leaf.index } };
      }
      case 'attestation': {
        const a = attestations.get(id)!;
        return {
          body: attestationView(a, a.isLatest, trailHref(at, String(leaf.data.flow), String(leaf.data.trail)), leaf.index),
          attachmentSize: a.attachmentSize ?? undefined,
        };
      }
      case 'artifact':
        return { body: artifactView(artifacts.get(id)!, leaf.index) };
      case 'snapshot':
        return snapshotView(store, snapshotPlaces.get(id)!, at, leaf.index);
      case 'approval': {
        const place = approvalPlaces.get(id)!;
        return { body: approvalFields((await store.getApproval(place.flowId, place.number))!, (await store.approvalLogIndexes(organizationId, [id])).get(id)) };
      }
      case 'review': {
        const { id: _id, approval_id: _a, created_by_token: token, ...review } = ids.reviews.get(id)!;
        const by = typeof token === 'string' ? { tokenId: token, description: tokens.get(token) ?? null } : null;
        return { body: { ...review, created_by: createdByName(by), log_index: leaf.index } };
      }
      case 'policy.version': {
        // GET policy's version, with the policy's name as the leaf gives it.
        const { created_by_token: token, created_at, version, comment, policy_yaml, sha256 } = ids.policyVersions.get(id)!;
        const by = typeof token === 'string' ? { tokenId: token, description: tokens.get(token) ?? null } : null;
        const body = { name: leaf.data.policy, version: Number(version), comment, timestamp: Number(created_at), policy_yaml, sha256 };
        return { body: { ...body, created_by: createdByName(by), log_index: leaf.index } };
      }
      case 'verdict': {
        // The verdict as recorded (domain/verdict.ts), which verify-package judges again.
        const { fingerprint, compliant, verdict, created_at } = ids.verdicts.get(id)!;
        const body = { fingerprint, compliant: Boolean(Number(compliant)), created_at: Number(created_at), verdict: JSON.parse(String(verdict)) };
        return { body: { ...body, log_index: leaf.index } };
      }
    }
  };
}

/** GET snapshot's answer (without the links to trails, which name evidence of other times) and the deployments it made. */
async function snapshotView(
  store: ExportStore,
  place: { environmentId: number; envName: string; envType: string; index: number },
  at: ViewContext,
  logIndex: number,
): Promise<View> {
  const snapshot = (await store.getSnapshot(place.environmentId, place.index))!;
  const previous = place.index > 1 ? await store.getSnapshot(place.environmentId, place.index - 1) : undefined;
  const before = new Set(previous?.artifacts.map((a) => a.fingerprint));
  const artifacts = snapshot.artifacts.map((artifact) => ({ ...artifact, new: !before.has(artifact.fingerprint), _links: {} }));
  return {
    body: {
      env_name: place.envName,
      type: place.envType,
      snapshot_index: snapshot.index,
      log_index: logIndex,
      created_at: snapshot.createdAt,
      created_by: createdByName(snapshot.createdBy),
      artifacts,
      _links: { environment: { href: environmentHref(at, place.envName) } },
    },
    deployments: artifacts
      .filter((a) => a.new)
      .map((a) => ({
        fingerprint: a.fingerprint,
        deployed_at: snapshot.createdAt,
        artifact_name: a.name,
        env_name: place.envName,
        snapshot_index: snapshot.index,
        _links: {},
      })),
  };
}
