/**
 * Checks an audit package offline (no server, no database): the checkpoint's signature by the
 * auditor's key, the manifest against it, every leaf's inclusion proof, every row against its
 * leaf's digest, every API view against its row, every attachment against its SHA-256 and its
 * attestation. Reads the archive as a stream, twice: first for the checkpoint and manifest
 * (at the front of a package as written; anywhere in one packed again by hand), then the rest.
 * Throws a PackageVerificationError naming the first part that fails.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { canonicalJson } from '../store/queries/chain.ts';
import {
  type Checkpoint,
  decodeProof,
  leafHash,
  type NoteVerifier,
  openCheckpoint,
  parseVerifierKey,
  toBase64,
  VerificationError,
  verifyInclusion,
} from '../transparency/index.ts';
import {
  type LeafType,
  type Manifest,
  PACKAGE_FORMAT,
  PackageVerificationError,
  type PackageReason,
  paths,
  recordFiles,
  type RecordFile,
  tableOfLeaf,
  viewFileOf,
} from './package-format.ts';
import { drain, eachEntry, readWhole } from './package-entries.ts';
import { leafDataMismatch, viewMismatch } from './record-facts.ts';

/** What a package proved. */
export interface PackageVerified {
  readonly manifest: Manifest;
  readonly checkpoint: Checkpoint;
  readonly records: number;
  readonly attachments: number;
  /** Whether the package's own `key` file is the key it was checked with. */
  readonly packageKeyMatches: boolean;
}

const HEADER_PARTS = new Set<string>([paths.manifest, paths.checkpoint, paths.key]);
const fail = (reason: PackageReason, path: string, message: string): never => {
  throw new PackageVerificationError(reason, path, message);
};

/** Verifies the package `open()` reads (a fresh stream each call) against `verifierKey`. */
export async function verifyPackage(open: () => Readable, verifierKey: string | NoteVerifier): Promise<PackageVerified> {
  const verifier = typeof verifierKey === 'string' ? asPart('--key', () => parseVerifierKey(verifierKey.trim())) : verifierKey;
  const header = await readHeader(open);
  const checkpoint = asPart(paths.checkpoint, () => openCheckpoint(header.get(paths.checkpoint)!, verifier).checkpoint);
  const manifest = readManifest(header.get(paths.manifest)!, checkpoint);
  const body = new PackageBody(checkpoint, manifest);
  await eachEntry(open(), async (name, entry) => {
    if (HEADER_PARTS.has(name) || name === paths.readme) return drain(entry);
    if (name.startsWith('attachments/')) return body.attachment(name, entry);
    if (name.startsWith('records/')) return body.recordPart(name, await readWhole(name, entry));
    fail('malformed-package', name, 'is not a part of an audit package');
  });
  const counts = body.finish();
  return { manifest, checkpoint, ...counts, packageKeyMatches: header.get(paths.key)!.toString('utf8').trim() === verifier.verifierKey };
}

/** The checks of records and attachments, fed in archive order. */
class PackageBody {
  private current: { index: number; parts: Map<RecordFile, Buffer> } | undefined;
  private readonly done = new Set<number>();
  /** Attachments read: SHA-256 → size. */
  private readonly hashed = new Map<string, number>();
  /** Attachments attestations name: SHA-256 → the view's size and the path that names it. */
  private readonly named = new Map<string, { size: number | undefined; path: string }>();
  private records = 0;

  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly manifest: Manifest,
  ) {}

  async attachment(name: string, entry: Readable): Promise<void> {
    const sha256 = name.slice('attachments/'.length);
    if (!/^[0-9a-f]{64}$/.test(sha256)) fail('malformed-package', name, 'an attachment is named by its SHA-256 in lowercase hex');
    if (this.hashed.has(sha256)) fail('malformed-package', name, 'is in the package twice');
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of entry) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const actual = hash.digest('hex');
    if (actual !== sha256) fail('attachment-mismatch', name, `its bytes hash to ${actual}, not to the SHA-256 it is named by`);
    this.hashed.set(sha256, size);
    this.checkSize(sha256);
  }

  recordPart(name: string, content: Buffer): void {
    const match = /^records\/(0|[1-9][0-9]{0,15})\/([^/]+)$/.exec(name);
    const file = match?.[2] as RecordFile | undefined;
    if (!match || !recordFiles.includes(file!)) fail('malformed-package', name, 'is not a part of an audit package');
    const index = Number(match![1]);
    if (this.current?.index !== index) {
      this.flush();
      if (this.done.has(index)) fail('malformed-package', name, `the parts of records/${index} are not together in the archive`);
      this.current = { index, parts: new Map() };
    }
    if (this.current!.parts.has(file!)) fail('malformed-package', name, 'is in the package twice');
    this.current!.parts.set(file!, content);
  }

  finish(): { records: number; attachments: number } {
    this.flush();
    for (const [sha256, { path }] of this.named) {
      if (!this.hashed.has(sha256))
        fail('attachment-missing', path, `names the attachment ${sha256}, which the package does not hold (${paths.attachment(sha256)})`);
    }
    return { records: this.records, attachments: this.hashed.size };
  }

  private flush(): void {
    if (!this.current) return;
    const { index, parts } = this.current;
    this.current = undefined;
    this.done.add(index);
    this.records++;
    this.verifyRecord(index, parts);
  }

  private verifyRecord(index: number, parts: Map<RecordFile, Buffer>): void {
    const leaf = parts.get('leaf') ?? fail('malformed-package', `records/${index}/`, 'has no leaf');
    const proofText = parts.get('proof.json') ?? fail('malformed-package', `records/${index}/`, 'has no proof.json');
    const proof = asPart(paths.proof(index), () => decodeProof(parseJson(paths.proof(index), proofText)));
    asPart(paths.leaf(index), () => verifyInclusion(index, this.checkpoint.size, leafHash(leaf), proof, this.checkpoint.rootHash));
    const record = readLeaf(index, leaf, this.manifest.organization);
    const rowText = parts.get('row.json');
    const views = (Object.entries(viewFileOf) as Array<[LeafType, RecordFile]>).filter(([, file]) => parts.has(file));
    if (rowText === undefined) {
      if (views.length || parts.has('deployments.json')) fail('malformed-package', `records/${index}/`, 'has an API view but not the row it shows');
      return;
    }
    const rowPath = paths.row(index);
    const parsedRow = parseJson(rowPath, rowText);
    const row =
      isObject(parsedRow) && canonicalJson(parsedRow) === rowText.toString('utf8')
        ? parsedRow
        : fail('row-mismatch', rowPath, 'is not a JSON object in canonical form (sorted keys, no spaces)');
    const digest = createHash('sha256').update(rowText).digest('hex');
    if (digest !== record.digest) fail('row-mismatch', rowPath, `hashes to ${digest}, the leaf's digest is ${String(record.digest)}`);
    const ref = isObject(record.ref) ? record.ref : fail('leaf-malformed', paths.leaf(index), 'names no stored row (no ref)');
    if (ref.table !== tableOfLeaf[record.type] || Number(ref.id) !== Number(row.id))
      fail('row-mismatch', rowPath, `is ${String(ref.table)}#${String(row.id)}, the leaf vouches for ${String(ref.table)}#${String(ref.id)}`);
    const data = isObject(record.data) ? record.data : {};
    const contradiction = leafDataMismatch(record.type, row, data);
    if (contradiction) fail('row-mismatch', rowPath, contradiction);
    for (const [type, file] of views) {
      const viewPath = `records/${index}/${file}`;
      if (type !== record.type) fail('malformed-package', viewPath, `a ${record.type} leaf has no ${file}`);
      const mismatch = viewMismatch(type, index, parseJson(viewPath, parts.get(file)!), row, data);
      if (mismatch) fail('record-mismatch', viewPath, mismatch);
    }
    if (parts.has('deployments.json')) this.checkDeployments(index, parts.get('deployments.json')!, row, data);
    if (record.type === 'attestation' && typeof row.attachment_sha256 === 'string') {
      const viewPath = paths.view(index, 'attestation');
      const view = parts.has('attestation.json') ? parseJson(viewPath, parts.get('attestation.json')!) : undefined;
      const size = isObject(view) && isObject(view.attachment) && typeof view.attachment.size === 'number' ? view.attachment.size : undefined;
      const sha256 = row.attachment_sha256;
      if (!this.named.has(sha256)) this.named.set(sha256, { size, path: view ? viewPath : rowPath });
      else if (size !== undefined && this.named.get(sha256)!.size === undefined) this.named.set(sha256, { size, path: viewPath });
      this.checkSize(sha256);
    }
  }

  private checkDeployments(index: number, text: Buffer, row: Record<string, unknown>, data: Record<string, unknown>): void {
    const path = paths.deployments(index);
    const deployments = parseJson(path, text);
    const artifacts = JSON.parse(String(row.artifacts ?? '[]')) as unknown;
    const fingerprints = new Set(Array.isArray(artifacts) ? artifacts.map((a) => (isObject(a) ? a.fingerprint : undefined)) : []);
    if (!Array.isArray(deployments)) fail('record-mismatch', path, 'is not a JSON array');
    (deployments as unknown[]).forEach((d, i) => {
      const ok = isObject(d) && d.snapshot_index === Number(row.snapshot_index) && d.env_name === data.environment && fingerprints.has(d.fingerprint);
      if (!ok) fail('record-mismatch', path, `deployment ${i} is not of an artifact this snapshot holds`);
    });
  }

  private checkSize(sha256: string): void {
    const named = this.named.get(sha256);
    const size = this.hashed.get(sha256);
    if (named?.size !== undefined && size !== undefined && named.size !== size) {
      fail('attachment-mismatch', paths.attachment(sha256), `is ${size} bytes; ${named.path} says ${named.size}`);
    }
  }
}

interface LeafRecord {
  seq: number;
  org: string;
  type: LeafType;
  digest?: unknown;
  ref?: unknown;
  data?: unknown;
}

function readLeaf(index: number, leaf: Buffer, organization: string): LeafRecord {
  const path = paths.leaf(index);
  const record = parseJson(path, leaf, 'leaf-malformed');
  if (!isObject(record)) return fail('leaf-malformed', path, 'is not a JSON object');
  if (record.seq !== index + 1) fail('leaf-malformed', path, `has seq ${String(record.seq)}, leaf ${index} has seq ${index + 1}`);
  if (record.org !== organization) fail('leaf-malformed', path, `is of the organisation ${JSON.stringify(record.org)}, not ${JSON.stringify(organization)}`);
  if (typeof record.type !== 'string' || !(record.type in viewFileOf)) fail('leaf-malformed', path, `has an unknown type ${JSON.stringify(record.type)}`);
  return record as unknown as LeafRecord;
}

function readManifest(text: Buffer, checkpoint: Checkpoint): Manifest {
  const manifest = parseJson(paths.manifest, text, 'malformed-package');
  if (!isObject(manifest) || manifest.format !== PACKAGE_FORMAT) fail('malformed-package', paths.manifest, `is not a manifest of ${PACKAGE_FORMAT}`);
  const m = manifest as unknown as Manifest;
  if (typeof m.organization !== 'string' || !checkpoint.origin.endsWith(`/${m.organization}`))
    fail('manifest-mismatch', paths.manifest, `names the organisation ${JSON.stringify(m.organization)}, the checkpoint is of ${checkpoint.origin}`);
  if (m.origin !== checkpoint.origin)
    fail('manifest-mismatch', paths.manifest, `names the log ${JSON.stringify(m.origin)}, the checkpoint is of ${checkpoint.origin}`);
  if (m.tree_size !== checkpoint.size || m.root_hash !== toBase64(checkpoint.rootHash))
    fail('manifest-mismatch', paths.manifest, 'names another tree size or root hash than the checkpoint');
  return m;
}

/** The manifest, checkpoint and key: stops reading once all three are found. */
async function readHeader(open: () => Readable): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const stream = open();
  await eachEntry(stream, async (name, entry) => {
    if (!HEADER_PARTS.has(name)) return drain(entry);
    if (found.has(name)) fail('malformed-package', name, 'is in the package twice');
    found.set(name, await readWhole(name, entry));
    if (found.size === HEADER_PARTS.size) return 'stop';
  });
  for (const name of HEADER_PARTS) if (!found.has(name)) fail('malformed-package', name, 'is missing');
  return found;
}

function parseJson(path: string, bytes: Buffer, reason: PackageReason = 'malformed-package'): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return fail(reason, path, 'is not JSON');
  }
}

/** Runs a transparency check, turning its VerificationError into the package's error for `path`. */
function asPart<T>(path: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof VerificationError) throw new PackageVerificationError(error.reason, path, error.message);
    throw error;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
