/**
 * The checks of a package's records and attachments, fed in archive order. Each part of a record
 * is checked as soon as what it depends on is known (a row needs its leaf, a view its row) and
 * then dropped, so a record holds at most its unchecked parts, each bounded by `partLimits`.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { canonicalJson } from '../store/queries/chain.ts';
import { type Checkpoint, decodeProof, leafHash, VerificationError, verifyInclusion } from '../transparency/index.ts';
import type { CompletenessCheck } from './package-completeness.ts';
import { partLimits, readWhole } from './package-entries.ts';
import {
  type LeafType,
  type Manifest,
  PackageVerificationError,
  type PackageReason,
  paths,
  recordFiles,
  type RecordFile,
  tableOfLeaf,
  viewFileOf,
} from './package-format.ts';
import { leafDataMismatch, viewMismatch } from './record-facts.ts';
import { isWholeLog } from './package-selection.ts';
import { type NamedRecord, rederiveVerdict } from '../domain/verdict.ts';
import { pullRequestFactsOf } from '../domain/pull-request-facts.ts';

const fail = (reason: PackageReason, path: string, message: string): never => {
  throw new PackageVerificationError(reason, path, message);
};
const viewFiles = new Set<string>(Object.values(viewFileOf));
const limitOf = (file: RecordFile) => (file === 'leaf' ? partLimits.leaf : file === 'proof.json' ? partLimits.proof : partLimits.json);

interface LeafRecord {
  seq: number;
  org: string;
  type: LeafType;
  digest?: unknown;
  ref?: unknown;
  data?: unknown;
}

/** One record folder being read: its parts not checked yet, and what the checked ones established. */
interface OpenRecord {
  index: number;
  seen: Set<RecordFile>;
  waiting: Map<RecordFile, Buffer>;
  leaf?: LeafRecord;
  row?: Record<string, unknown>;
}

export class PackageBody {
  private current: OpenRecord | undefined;
  /** Attachments read: SHA-256 → size. */
  private readonly hashed = new Map<string, number>();
  /** Attachments attestations name: SHA-256 → the view's size and the path that names it. */
  private readonly named = new Map<string, { size: number | undefined; path: string }>();
  private records = 0;
  /** What verdicts may name of the records read (attestations and artifacts without their data), by leaf index. */
  private readonly inputs = new Map<number, NamedRecord>();
  /** Verdicts read, judged again once every record is read (a verdict may come before what it names). */
  private readonly verdicts: Array<{ index: number; row: Record<string, unknown> }> = [];

  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly manifest: Manifest,
    private readonly completeness: CompletenessCheck,
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

  async recordPart(name: string, entry: Readable): Promise<void> {
    const match = /^records\/(0|[1-9][0-9]{0,15})\/([^/]+)$/.exec(name);
    const file = match?.[2] as RecordFile | undefined;
    if (!match || !recordFiles.includes(file!)) fail('malformed-package', name, 'is not a part of an audit package');
    const index = Number(match![1]);
    if (this.current?.index !== index) {
      this.flush();
      if (this.completeness.hasRecord(index)) fail('malformed-package', name, `the parts of records/${index} are not together in the archive`);
      this.completeness.record(index);
      this.current = { index, seen: new Set(), waiting: new Map() };
    }
    const record = this.current!;
    if (record.seen.has(file!)) fail('malformed-package', name, 'is in the package twice');
    if (viewFiles.has(file!) && [...record.seen].some((seen) => viewFiles.has(seen))) fail('malformed-package', name, 'is a second API view: a record has one');
    record.seen.add(file!);
    record.waiting.set(file!, await readWhole(name, entry, limitOf(file!)));
    this.advance(record);
  }

  finish(): { records: number; attachments: number; verdicts: number } {
    this.flush();
    const verdicts = this.rederiveVerdicts();
    for (const [sha256, { path }] of this.named) {
      if (!this.hashed.has(sha256))
        fail('attachment-missing', path, `names the attachment ${sha256}, which the package does not hold (${paths.attachment(sha256)})`);
    }
    for (const sha256 of this.hashed.keys())
      if (!this.named.has(sha256)) fail('outside-selection', paths.attachment(sha256), "is an attachment no record's row names");
    return { records: this.records, attachments: this.hashed.size, verdicts };
  }

  /**
   * Judges every verdict again from the records it names (domain/verdict.ts), and names every one
   * that does not follow. In a package of part of the log a verdict whose evidence is outside it
   * is not judged; in one of the whole log every record it names must be there. Answers how many were judged.
   */
  private rederiveVerdicts(): number {
    const whole = isWholeLog(this.manifest.selection);
    const failures: Array<{ index: number; reason: string }> = [];
    let judged = 0;
    for (const { index, row } of this.verdicts) {
      const text = String(row.verdict);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const named = (i: number) => this.inputs.get(i);
      const digest = createHash('sha256').update(text).digest('hex');
      let reason = digest === row.verdict_sha256 ? rederiveVerdict(parsed, named) : `its text hashes to ${digest}, not to its verdict_sha256`;
      if (reason?.includes('which the package does not hold') && !whole) reason = undefined;
      else judged++;
      if (reason) failures.push({ index, reason });
    }
    if (failures.length)
      fail(
        'verdict-mismatch',
        paths.row(failures[0]!.index),
        failures.map((f) => `verdict ${f.index} does not follow from its evidence: ${f.reason}`).join('; '),
      );
    return judged;
  }

  private flush(): void {
    const record = this.current;
    if (!record) return;
    this.current = undefined;
    this.records++;
    const folder = `records/${record.index}/`;
    if (!record.leaf) {
      if (!record.waiting.has('leaf')) fail('malformed-package', folder, 'has no leaf');
      fail('malformed-package', folder, 'has no proof.json');
    }
    if (record.waiting.size) fail('malformed-package', folder, 'has an API view but not the row it shows');
  }

  /** Checks every waiting part whose dependencies are checked, dropping it. */
  private advance(record: OpenRecord): void {
    const { index, waiting } = record;
    if (!record.leaf && waiting.has('leaf') && waiting.has('proof.json')) {
      const leaf = waiting.get('leaf')!;
      const proof = asPart(paths.proof(index), () => decodeProof(parseJson(paths.proof(index), waiting.get('proof.json')!)));
      asPart(paths.leaf(index), () => verifyInclusion(index, this.checkpoint.size, leafHash(leaf), proof, this.checkpoint.rootHash));
      record.leaf = readLeaf(index, leaf, this.manifest.organization);
      waiting.delete('leaf');
      waiting.delete('proof.json');
    }
    if (!record.leaf) return;
    if (!record.row && waiting.has('row.json')) {
      record.row = this.checkRow(index, record.leaf, waiting.get('row.json')!);
      waiting.delete('row.json');
    }
    if (!record.row) return;
    for (const [file, bytes] of waiting) {
      if (file === 'deployments.json') this.checkDeployments(index, bytes, record.row, record.leaf);
      else this.checkView(index, file, bytes, record.row, record.leaf);
      waiting.delete(file);
    }
  }

  private checkRow(index: number, record: LeafRecord, rowText: Buffer): Record<string, unknown> {
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
    const contradiction = leafDataMismatch(record.type, row, dataOf(record));
    if (contradiction) fail('row-mismatch', rowPath, contradiction);
    this.keepForVerdicts(index, record, row);
    if (record.type === 'attestation' && typeof row.attachment_sha256 === 'string' && !this.named.has(row.attachment_sha256)) {
      this.named.set(row.attachment_sha256, { size: undefined, path: rowPath });
      this.checkSize(row.attachment_sha256);
    }
    return row;
  }

  private keepForVerdicts(index: number, record: LeafRecord, row: Record<string, unknown>): void {
    const data = dataOf(record);
    if (record.type === 'verdict') this.verdicts.push({ index, row });
    else if (record.type === 'policy.version') this.inputs.set(index, { type: record.type, data, row });
    else if (record.type === 'attestation' || record.type === 'artifact') {
      const { name, type, compliant, artifact_fingerprint, fingerprint, git_commit } = row;
      // Four eyes reads a pull request attestation's pull requests: kept as the facts a verdict names, not the whole data.
      const pullRequests = record.type === 'attestation' && type === 'pull_request' ? { pull_requests: pullRequestFactsOf(storedPullRequests(row.data)) } : {};
      this.inputs.set(index, {
        type: record.type,
        data: { flow: data.flow, trail: data.trail },
        row: { name, type, compliant, artifact_fingerprint, fingerprint, git_commit, ...pullRequests },
      });
    }
  }

  private checkView(index: number, file: RecordFile, bytes: Buffer, row: Record<string, unknown>, record: LeafRecord): void {
    const viewPath = `records/${index}/${file}`;
    const type = (Object.keys(viewFileOf) as LeafType[]).find((kind) => viewFileOf[kind] === file)!;
    if (type !== record.type) fail('malformed-package', viewPath, `a ${record.type} leaf has no ${file}`);
    const view = parseJson(viewPath, bytes);
    const mismatch = viewMismatch(type, index, view, row, dataOf(record));
    if (mismatch) fail('record-mismatch', viewPath, mismatch);
    if (type !== 'attestation' || typeof row.attachment_sha256 !== 'string') return;
    const size = isObject(view) && isObject(view.attachment) && typeof view.attachment.size === 'number' ? view.attachment.size : undefined;
    const named = this.named.get(row.attachment_sha256);
    if (size !== undefined && named?.size === undefined) this.named.set(row.attachment_sha256, { size, path: viewPath });
    else if (named?.path === paths.row(index)) this.named.set(row.attachment_sha256, { size: named.size, path: viewPath });
    this.checkSize(row.attachment_sha256);
  }

  private checkDeployments(index: number, text: Buffer, row: Record<string, unknown>, record: LeafRecord): void {
    const path = paths.deployments(index);
    if (record.type !== 'snapshot') fail('malformed-package', path, `a ${record.type} leaf has no deployments.json`);
    const deployments = parseJson(path, text);
    const artifacts = JSON.parse(String(row.artifacts ?? '[]')) as unknown;
    const fingerprints = new Set(Array.isArray(artifacts) ? artifacts.map((a) => (isObject(a) ? a.fingerprint : undefined)) : []);
    if (!Array.isArray(deployments)) fail('record-mismatch', path, 'is not a JSON array');
    (deployments as unknown[]).forEach((d, i) => {
      const ok = isObject(d) && d.snapshot_index === Number(row.snapshot_index) && d.env_name === dataOf(record).environment && fingerprints.has(d.fingerprint);
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

function readLeaf(index: number, leaf: Buffer, organization: string): LeafRecord {
  const path = paths.leaf(index);
  const record = parseJson(path, leaf, 'leaf-malformed');
  if (!isObject(record)) return fail('leaf-malformed', path, 'is not a JSON object');
  if (record.seq !== index + 1) fail('leaf-malformed', path, `has seq ${String(record.seq)}, leaf ${index} has seq ${index + 1}`);
  if (record.org !== organization) fail('leaf-malformed', path, `is of the organisation ${JSON.stringify(record.org)}, not ${JSON.stringify(organization)}`);
  if (typeof record.type !== 'string' || !(record.type in viewFileOf)) fail('leaf-malformed', path, `has an unknown type ${JSON.stringify(record.type)}`);
  return record as unknown as LeafRecord;
}

const dataOf = (record: LeafRecord): Record<string, unknown> => (isObject(record.data) ? record.data : {});

export function parseJson(path: string, bytes: Buffer, reason: PackageReason = 'malformed-package'): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return fail(reason, path, 'is not JSON');
  }
}

/** Runs a transparency check, turning its VerificationError into the package's error for `path`. */
export function asPart<T>(path: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof VerificationError) throw new PackageVerificationError(error.reason, path, error.message);
    throw error;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The `pull_requests` of an attestation row's data (its JSON text), undefined when it does not parse. */
function storedPullRequests(data: unknown): unknown {
  try {
    return typeof data === 'string' ? (JSON.parse(data) as { pull_requests?: unknown }).pull_requests : undefined;
  } catch {
    return undefined;
  }
}
