/**
 * Checks an audit package offline (no server, no database): the checkpoint's signature by the
 * auditor's key, the manifest against it, every leaf's inclusion proof, every row against its
 * leaf's digest, every API view against its row, every attachment against its SHA-256 and its
 * attestation, and that the package holds every leaf of its selection. Reads the archive as a
 * stream, twice: first for the checkpoint and manifest (at the front of a package as written;
 * anywhere in one packed again by hand), then the rest. Throws a PackageVerificationError naming
 * the first part that fails.
 */
import type { Readable } from 'node:stream';
import { type Checkpoint, type NoteVerifier, openCheckpoint, parseVerifierKey, toBase64 } from '../transparency/index.ts';
import { asPart, isObject, PackageBody, parseJson } from './package-body.ts';
import { type Completeness, CompletenessCheck } from './package-completeness.ts';
import { drain, eachEntry, partLimits, readWhole } from './package-entries.ts';
import { type Manifest, PACKAGE_FORMAT, PACKAGE_FORMAT_1, PackageVerificationError, type PackageReason, paths, type Selection } from './package-format.ts';

/** What a package proved. */
export interface PackageVerified {
  readonly manifest: Manifest;
  readonly checkpoint: Checkpoint;
  readonly records: number;
  readonly attachments: number;
  /** Verdicts judged again from the policy versions and evidence they name, each found to follow from them. */
  readonly verdicts: number;
  /** Whether the package's own `key` file is the key it was checked with. */
  readonly packageKeyMatches: boolean;
  /** Whether every leaf of the selection is proven present, and what is not proven. */
  readonly completeness: Completeness;
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
  const completeness = new CompletenessCheck(checkpoint, manifest);
  const body = new PackageBody(checkpoint, manifest, completeness);
  // `tar -x` keeps the last of two entries of one name: a second copy of any part is refused, whatever it holds.
  const once = new Set<string>();
  await eachEntry(open(), async (name, entry) => {
    if (HEADER_PARTS.has(name) || name === paths.readme) {
      if (once.has(name)) fail('malformed-package', name, 'is in the package twice');
      once.add(name);
      return drain(entry);
    }
    if (name.startsWith('attachments/')) return body.attachment(name, entry);
    if (name.startsWith('records/')) return body.recordPart(name, entry);
    const listed = /^leaves\/(0|[1-9][0-9]{0,15})$/.exec(name);
    if (listed) return completeness.leafListPart(name, Number(listed[1]), entry);
    fail('malformed-package', name, 'is not a part of an audit package');
  });
  const counts = body.finish();
  return {
    manifest,
    checkpoint,
    ...counts,
    packageKeyMatches: header.get(paths.key)!.toString('utf8').trim() === verifier.verifierKey,
    completeness: completeness.finish(),
  };
}

function readManifest(text: Buffer, checkpoint: Checkpoint): Manifest {
  const manifest = parseJson(paths.manifest, text, 'malformed-package');
  if (!isObject(manifest) || (manifest.format !== PACKAGE_FORMAT && manifest.format !== PACKAGE_FORMAT_1))
    fail('malformed-package', paths.manifest, `is not a manifest of ${PACKAGE_FORMAT} (or ${PACKAGE_FORMAT_1})`);
  const m = manifest as unknown as Manifest;
  if (typeof m.organization !== 'string' || !checkpoint.origin.endsWith(`/${m.organization}`))
    fail('manifest-mismatch', paths.manifest, `names the organisation ${JSON.stringify(m.organization)}, the checkpoint is of ${checkpoint.origin}`);
  if (m.origin !== checkpoint.origin)
    fail('manifest-mismatch', paths.manifest, `names the log ${JSON.stringify(m.origin)}, the checkpoint is of ${checkpoint.origin}`);
  if (m.tree_size !== checkpoint.size || m.root_hash !== toBase64(checkpoint.rootHash))
    fail('manifest-mismatch', paths.manifest, 'names another tree size or root hash than the checkpoint');
  checkSelection(m.selection);
  return m;
}

/** The selection is what the export takes: names as strings, times as numbers, nothing else. */
function checkSelection(selection: unknown): asserts selection is Selection {
  if (!isObject(selection)) return fail('malformed-package', paths.manifest, 'has no selection object');
  for (const [key, value] of Object.entries(selection)) {
    const ok = key === 'flow' || key === 'trail' ? typeof value === 'string' : key === 'since' || key === 'until' ? Number.isFinite(value) : false;
    if (!ok) fail('malformed-package', paths.manifest, `selection.${key} is not a flow, trail, since or until of the form an export writes`);
  }
  if (selection.trail !== undefined && selection.flow === undefined) fail('malformed-package', paths.manifest, 'selects a trail without its flow');
}

/** The manifest, checkpoint and key: stops reading once all three are found. */
async function readHeader(open: () => Readable): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const stream = open();
  await eachEntry(stream, async (name, entry) => {
    if (!HEADER_PARTS.has(name)) return drain(entry);
    if (found.has(name)) fail('malformed-package', name, 'is in the package twice');
    found.set(name, await readWhole(name, entry, partLimits.header));
    if (found.size === HEADER_PARTS.size) return 'stop';
  });
  for (const name of HEADER_PARTS) if (!found.has(name)) fail('malformed-package', name, 'is missing');
  return found;
}
