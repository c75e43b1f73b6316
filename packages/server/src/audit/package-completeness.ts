/**
 * Whether a package holds every leaf of its selection. A package of the whole log must hold a
 * record of every leaf below the checkpoint's size. A package of a selection carries the log's
 * leaf list (`leaves/N`, every leaf's bytes); the verifier recomputes the checkpoint's root from
 * it, so the list is the log, and reads from each listed leaf whether the selection picks it: the
 * records must be exactly those. Memory: a bit per leaf and a hash per part of the list, created
 * as the package's own parts arrive.
 */
import type { Readable } from 'node:stream';
import { type Checkpoint, CompactRange, foldRight, type Hash, leafHash } from '../transparency/index.ts';
import { partLimits } from './package-entries.ts';
import { LEAF_LIST_PART, type Manifest, PACKAGE_FORMAT, PackageVerificationError, type PackageReason, paths } from './package-format.ts';
import { approvalOf, describeSelection, inSelection, isWholeLog } from './package-selection.ts';

/** What a package proves of its completeness. */
export interface Completeness {
  /** True when every leaf of the selection is proven to be in the package. */
  readonly proven: boolean;
  /** What could not be proven, in plain words (empty when `proven`). */
  readonly warnings: readonly string[];
}

const fail = (reason: PackageReason, path: string, message: string): never => {
  throw new PackageVerificationError(reason, path, message);
};

/** A set of leaf indexes, one bit each, kept in parts of `LEAF_LIST_PART` made when first used. */
class LeafBits {
  private readonly parts = new Map<number, Uint8Array>();
  add(index: number): void {
    const part = Math.floor(index / LEAF_LIST_PART);
    let bits = this.parts.get(part);
    if (!bits) this.parts.set(part, (bits = new Uint8Array(LEAF_LIST_PART / 8)));
    const at = index % LEAF_LIST_PART;
    bits[at >> 3]! |= 1 << (at & 7);
  }
  has(index: number): boolean {
    const at = index % LEAF_LIST_PART;
    return ((this.parts.get(Math.floor(index / LEAF_LIST_PART))?.[at >> 3] ?? 0) & (1 << (at & 7))) !== 0;
  }
  /** The smallest index below `size` in one set and not the other, or undefined. */
  static firstDifference(a: LeafBits, b: LeafBits, size: number): number | undefined {
    const empty = new Uint8Array(LEAF_LIST_PART / 8);
    for (let part = 0; part * LEAF_LIST_PART < size; part++) {
      const [x, y] = [a.parts.get(part) ?? empty, b.parts.get(part) ?? empty];
      for (let byte = 0; byte < x.length; byte++) {
        if (x[byte] === y[byte]) continue;
        const differs = x[byte]! ^ y[byte]!;
        return part * LEAF_LIST_PART + byte * 8 + Math.log2(differs & -differs);
      }
    }
    return undefined;
  }
}

/** Collects the records and the leaf list as the archive gives them, in any order; `finish` decides. */
export class CompletenessCheck {
  private readonly records = new LeafBits();
  private readonly selected = new LeafBits();
  /** Complete subtree hash of each full part of the leaf list; the frontier of the last, partial one. */
  private readonly partHashes = new Map<number, Hash[]>();
  private readonly approvalFlows = new Map<number, string>();
  /** Reviews in the list, resolved against their approval's flow once the whole list is read. */
  private readonly reviews: Array<{ index: number; approvalId: number }> = [];
  private readonly whole: boolean;
  private readonly listed: boolean;

  constructor(
    private readonly checkpoint: Checkpoint,
    private readonly manifest: Manifest,
  ) {
    this.whole = isWholeLog(manifest.selection ?? {});
    this.listed = manifest.format === PACKAGE_FORMAT && !this.whole;
  }

  /** Whether records/`index`/ was seen already (its parts must be together). */
  hasRecord(index: number): boolean {
    return this.records.has(index);
  }

  record(index: number): void {
    this.records.add(index);
  }

  /** Reads one part of the leaf list, `leaves/START`: leaves START.. in order, each followed by a newline. */
  async leafListPart(name: string, start: number, entry: Readable): Promise<void> {
    if (!this.listed) fail('malformed-package', name, `a package of ${this.whole ? 'the whole log' : this.manifest.format} has no leaf list`);
    if (start % LEAF_LIST_PART !== 0 || start >= this.checkpoint.size)
      fail('malformed-package', name, `the leaf list's parts start at multiples of ${LEAF_LIST_PART} below the tree size ${this.checkpoint.size}`);
    const part = start / LEAF_LIST_PART;
    if (this.partHashes.has(part)) fail('malformed-package', name, 'is in the package twice');
    const count = Math.min(LEAF_LIST_PART, this.checkpoint.size - start);
    const range = new CompactRange();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = (leaf: Buffer) => {
      const index = start + range.size;
      if (range.size === count) fail('leaf-list-mismatch', name, `holds more than the ${count} leaves from ${start}`);
      range.append(leafHash(leaf));
      this.readListed(name, index, leaf);
    };
    for await (const chunk of entry) {
      let rest = chunk as Buffer;
      for (let end = rest.indexOf(0x0a); end !== -1; end = rest.indexOf(0x0a)) {
        take(pending.length ? Buffer.concat([...pending, rest.subarray(0, end)]) : rest.subarray(0, end));
        pending = [];
        pendingBytes = 0;
        rest = rest.subarray(end + 1);
      }
      pendingBytes += rest.length;
      if (pendingBytes > partLimits.leaf) fail('malformed-package', name, `holds a line over ${partLimits.leaf} bytes, longer than any leaf`);
      if (rest.length) pending.push(Buffer.from(rest));
    }
    if (pendingBytes) fail('leaf-list-mismatch', name, 'does not end with a newline after its last leaf');
    if (range.size !== count) fail('leaf-list-mismatch', name, `holds ${range.size} leaves, leaves ${start} to ${start + count - 1} are ${count}`);
    this.partHashes.set(part, count === LEAF_LIST_PART ? [range.root()] : range.hashes);
  }

  private readListed(name: string, index: number, leaf: Buffer): void {
    let record: Record<string, unknown> = {};
    try {
      record = JSON.parse(leaf.toString('utf8')) as Record<string, unknown>;
    } catch {
      fail('leaf-list-mismatch', name, `leaf ${index} is not JSON`);
    }
    if (record === null || typeof record !== 'object') fail('leaf-list-mismatch', name, `leaf ${index} is not a JSON object`);
    const approval = approvalOf({ type: record.type, ref: record.ref, data: record.data });
    if (approval) this.approvalFlows.set(approval.id, approval.flow);
    const data = record.data as Record<string, unknown> | null | undefined;
    if (record.type === 'review' && this.manifest.selection.flow !== undefined) {
      // Its flow is its approval's, whose leaf may be in a part not read yet.
      if (inSelection(record as never, { ...this.manifest.selection, flow: undefined }, () => undefined))
        this.reviews.push({ index, approvalId: Number(data?.approval_id) });
      return;
    }
    if (inSelection(record as never, this.manifest.selection, () => undefined)) this.selected.add(index);
  }

  /** Decides, once every part was read: throws naming the first leaf missing or extra. */
  finish(): Completeness {
    const size = this.checkpoint.size;
    const selection = describeSelection(this.manifest.selection ?? {});
    if (this.whole) {
      for (let index = 0; index < size; index++)
        if (!this.records.has(index)) fail('package-incomplete', `records/${index}/`, `is missing: a package of the whole log holds every leaf below ${size}`);
      return { proven: true, warnings: [] };
    }
    if (!this.listed) {
      return {
        proven: false,
        warnings: [
          `${this.manifest.format} does not prove that it holds every leaf of its selection (${selection}): records may have been left out or removed. Export it again (format ${PACKAGE_FORMAT}) to have that proven.`,
        ],
      };
    }
    this.checkRoot();
    for (const { index, approvalId } of this.reviews) if (this.approvalFlows.get(approvalId) === this.manifest.selection.flow) this.selected.add(index);
    const differs = LeafBits.firstDifference(this.selected, this.records, size);
    if (differs !== undefined) {
      if (this.selected.has(differs))
        fail('package-incomplete', `records/${differs}/`, `is missing: leaf ${differs} of the log is of the selection (${selection}), the leaf list says`);
      fail('outside-selection', `records/${differs}/`, `is not of the selection (${selection}) the manifest names`);
    }
    return { proven: true, warnings: [] };
  }

  /** The leaf list's parts, all there, lead to the checkpoint's root: the list is the log. */
  private checkRoot(): void {
    const size = this.checkpoint.size;
    const parts = Math.ceil(size / LEAF_LIST_PART);
    for (let part = 0; part < parts; part++)
      if (!this.partHashes.has(part))
        fail('package-incomplete', paths.leafList(part * LEAF_LIST_PART), "is missing: a selection's package lists every leaf of the log");
    const full = new CompactRange();
    for (let part = 0; part < Math.floor(size / LEAF_LIST_PART); part++) full.append(this.partHashes.get(part)![0]!);
    const tail = size % LEAF_LIST_PART ? this.partHashes.get(parts - 1)! : [];
    const root = foldRight([...full.hashes, ...tail]);
    if (!Buffer.from(root).equals(Buffer.from(this.checkpoint.rootHash)))
      fail('leaf-list-mismatch', paths.leafList(0), "the leaves listed in leaves/ do not lead to the checkpoint's root: they are not the log");
  }
}
