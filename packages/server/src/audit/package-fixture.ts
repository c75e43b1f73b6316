/**
 * Audit packages built from a MemoryTree, for tests: leaves shaped as the store's chain records
 * (canonical JSON with the digest of the row they vouch for), rows and API views that agree, and
 * a way to rewrite one part of a finished package, as someone tampering with it would.
 */
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { canonicalJson } from '../store/queries/chain.ts';
import { generateNoteKey, inclusionProof, MemoryTree, parseSignerKey, signCheckpoint, toBase64 } from '../transparency/index.ts';
import { LEAF_LIST_PART, type LeafType, type Manifest, PACKAGE_FORMAT, PackageVerificationError, type Selection, tableOfLeaf } from './package-format.ts';
import { verifyPackage } from './verify-package.ts';
import { type LeafListPart, type PackageRecord, writePackage } from './write-package.ts';

export const fixtureOrigin = 'trailproof.example.com/acme';
const sha256 = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Evidence {
  type: LeafType;
  row: Record<string, unknown>;
  view: unknown;
  data: Record<string, unknown>;
  attachment?: Buffer;
}

/** Three trails' worth of evidence: begins, attestations (two with one shared attachment), a snapshot, an approval, a review. */
function evidence(): Evidence[] {
  const report = Buffer.from('<testsuite tests="1"/>\n');
  const list: Evidence[] = [];
  for (let t = 1; t <= 3; t++) {
    list.push({
      type: 'trail.begin',
      data: { flow: 'backend', trail: `t${t}` },
      row: {
        id: t,
        flow_id: 1,
        name: `t${t}`,
        description: 'build',
        commit_sha: null,
        repo_name: null,
        git_commit_info: null,
        repo_info: null,
        origin_url: null,
        external_urls: null,
        user_data: '{"ticket":"T-1"}',
        template_sha256: null,
        created_at: 1_700_000_000 + t,
      },
      view: {
        name: `t${t}`,
        description: 'build',
        flow: { name: 'backend' },
        git_commit_info: null,
        repo_info: null,
        origin_url: null,
        external_urls: null,
        user_data: { ticket: 'T-1' },
        created_at: 1_700_000_000 + t,
        compliance_state: 'COMPLIANT',
      },
    });
    const attachment = t < 3 ? report : Buffer.from(`coverage of t${t}`);
    const row = {
      id: 10 + t,
      trail_id: t,
      name: 'tests',
      type: 'junit',
      data: '{"description":"unit tests"}',
      artifact_fingerprint: null,
      attachment_sha256: sha256(attachment),
      attachment_name: 'report.xml',
      compliant: 1,
      created_at: 1_700_000_100 + t,
    };
    list.push({
      type: 'attestation',
      row,
      attachment,
      data: { flow: 'backend', trail: `t${t}`, name: 'tests', type: 'junit', artifact_fingerprint: null, attachment_sha256: row.attachment_sha256 },
      view: {
        attestation_id: String(row.id),
        attestation_name: 'tests',
        attestation_type: 'junit',
        is_compliant: true,
        is_latest: true,
        created_at: row.created_at,
        artifact_fingerprint: null,
        target_artifacts: [],
        description: 'unit tests',
        origin_url: null,
        git_commit_info: null,
        repo_info: null,
        external_urls: null,
        annotations: null,
        user_data: null,
        junit_results: null,
        totals: null,
        attachment: { name: 'report.xml', sha256: row.attachment_sha256, size: attachment.length, _links: { download: { href: '/x' } } },
      },
    });
  }
  const artifacts = [{ name: 'app', fingerprint: 'f'.repeat(64), instance_count: 1, creation_timestamp: 1_700_000_000, instances: [] }];
  list.push({
    type: 'snapshot',
    data: { environment: 'production', snapshot_index: 1 },
    row: { id: 1, environment_id: 1, snapshot_index: 1, artifacts: JSON.stringify(artifacts), created_at: 1_700_000_200 },
    view: {
      env_name: 'production',
      type: 'K8S',
      snapshot_index: 1,
      created_at: 1_700_000_200,
      artifacts: artifacts.map((a) => ({ ...a, new: true, _links: {} })),
    },
  });
  list.push({
    type: 'approval',
    data: { flow: 'backend', release_number: 1, target_artifact: 'f'.repeat(64) },
    row: {
      id: 1,
      flow_id: 1,
      release_number: 1,
      target_artifact: 'f'.repeat(64),
      base_artifact: 'e'.repeat(64),
      artifact_name: 'app',
      description: 'release',
      environment: 'production',
      src_commit_list: '[]',
      user_data: 'null',
      created_at: 1_700_000_300,
    },
    view: {
      release_number: 1,
      target_artifact: 'f'.repeat(64),
      base_artifact: 'e'.repeat(64),
      artifact_name: 'app',
      description: 'release',
      src_commit_list: [],
      created_at: 1_700_000_300,
      environment: 'production',
      user_data: null,
      state: 'APPROVED',
      approvals: [],
    },
  });
  list.push({
    type: 'review',
    data: { approval_id: 1, state: 'APPROVED', approved_by: 'alice' },
    row: { id: 1, approval_id: 1, state: 'APPROVED', comment: 'ok', approved_by: 'alice', approval_url: '', timestamp: 1_700_000_400 },
    view: { state: 'APPROVED', comment: 'ok', approved_by: 'alice', approval_url: '', timestamp: 1_700_000_400 },
  });
  return list;
}

/**
 * A package of `evidence()` plus `extraLeaves` leaves after it (no time, so of no time selection),
 * and the key that checks it. Its selection is `since` the first leaf's time (every leaf of
 * `evidence()`), with the leaf list; `{}` makes it a package of the whole log.
 */
export async function fixturePackage(
  options: { extraLeaves?: number; selection?: Selection; format?: Manifest['format'] } = {},
): Promise<{ bytes: Buffer; verifierKey: string; otherKey: string }> {
  const key = generateNoteKey('trailproof.example.com');
  const items = evidence();
  const leaves = items.map((item, i) =>
    Buffer.from(
      canonicalJson({
        seq: i + 1,
        org: 'acme',
        type: item.type,
        at: 1_700_000_000 + i,
        ref: { table: tableOfLeaf[item.type], id: item.row.id },
        digest: sha256(canonicalJson(item.row)),
        data: item.data,
      }),
    ),
  );
  for (let i = 0; i < (options.extraLeaves ?? 5); i++)
    leaves.push(Buffer.from(canonicalJson({ seq: leaves.length + 1, org: 'acme', type: 'attestation', data: {} })));
  const tree = MemoryTree.fromLeaves(leaves);
  const manifest: Manifest = {
    format: PACKAGE_FORMAT,
    organization: 'acme',
    origin: fixtureOrigin,
    tree_size: tree.size,
    root_hash: toBase64(tree.root()),
    selection: options.selection ?? { since: 1_700_000_000 },
    exported_at: 1_700_001_000,
    ...(options.format ? { format: options.format } : {}),
  };
  const listed = Object.keys(manifest.selection).length > 0 && manifest.format === PACKAGE_FORMAT;
  const leafList: LeafListPart[] = [];
  for (let start = 0; listed && start < leaves.length; start += LEAF_LIST_PART)
    leafList.push({ leafList: { start, leaves: leaves.slice(start, start + LEAF_LIST_PART) } });
  const records: Array<PackageRecord | LeafListPart> = items.map((item, index) => ({
    index,
    leaf: leaves[index]!,
    proof: inclusionProof(tree, index, tree.size),
    row: item.row,
    view: { type: item.type, body: item.view },
    ...(item.type === 'snapshot'
      ? { deployments: [{ fingerprint: 'f'.repeat(64), deployed_at: 1_700_000_200, artifact_name: 'app', env_name: 'production', snapshot_index: 1 }] }
      : {}),
    ...(item.attachment ? { attachment: { sha256: sha256(item.attachment), size: item.attachment.length, open: () => item.attachment! } } : {}),
  }));
  const checkpoint = signCheckpoint({ origin: fixtureOrigin, size: tree.size, rootHash: tree.root() }, parseSignerKey(key.signerKey));
  const bytes = await packageBytes((out) => writePackage(out, { manifest, checkpoint, verifierKey: key.verifierKey, records: [...records, ...leafList] }));
  return { bytes, verifierKey: key.verifierKey, otherKey: generateNoteKey('trailproof.example.com').verifierKey };
}

/** What `write` writes into a stream, gathered. */
export async function packageBytes(write: (out: Writable) => Promise<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await write(out);
  return Buffer.concat(chunks);
}

/** The package with each part passed through `change` (undefined drops it) and `added` at the end, in the order `order` sorts the names (default: as they were). */
export async function rewritePackage(
  bytes: Buffer,
  change: (name: string, content: Buffer) => Buffer | undefined,
  order?: (a: string, b: string) => number,
  added: Array<[string, Buffer]> = [],
): Promise<Buffer> {
  const parts: Array<[string, Buffer]> = [];
  const extract = tar.extract();
  const reading = pipeline(Readable.from([bytes]), createGunzip(), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    parts.push([entry.header.name, Buffer.concat(chunks)]);
  }
  await reading;
  parts.push(...added);
  if (order) parts.sort(([a], [b]) => order(a, b));
  const pack = tar.pack();
  for (const [name, content] of parts) {
    const changed = change(name, content);
    if (changed) pack.entry({ name, size: changed.length }, changed);
  }
  pack.finalize();
  return packageBytes((out) => pipeline(pack, createGzip(), out));
}

/** A fresh stream of `bytes` at each call, as `verifyPackage` opens a file. */
export const opener = (bytes: Buffer) => () => Readable.from([bytes]);

/** The reason and path of the failure of verifying `bytes`, or 'verified'. */
export async function outcome(bytes: Buffer, key: string): Promise<string> {
  try {
    await verifyPackage(opener(bytes), key);
    return 'verified';
  } catch (error) {
    if (error instanceof PackageVerificationError) return `${error.reason} ${error.path}`;
    throw error;
  }
}
