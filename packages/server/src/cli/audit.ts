/**
 * The auditor's commands: `verify-package` and `verify-checkpoint` check evidence offline (or
 * against a server for a consistency proof), trusting only the verifier key they are given.
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { PackageVerificationError } from '../audit/package-format.ts';
import { describeSelection } from '../audit/package-selection.ts';
import { verifyPackage } from '../audit/verify-package.ts';
import { defineCommand, UsageError } from './common.ts';
import { decodeProof, VerificationError, verifyCheckpointConsistency } from '../transparency/index.ts';

/** The verifier key: the key text itself, or a file that holds it. */
function verifierKey(value: string | undefined): string {
  if (!value) throw new UsageError("--key VERIFIER_KEY is required: the log's verifier key (name+hash+base64), or a file holding it");
  return existsSync(value) && statSync(value).isFile() ? readFileSync(value, 'utf8').trim() : value.trim();
}

export const verifyPackageCommand = defineCommand({
  name: 'verify-package',
  synopsis: 'FILE.tar.gz --key VERIFIER_KEY',
  summary: [
    "Checks an audit package (from `trailproof export`) offline: the checkpoint's signature by the key,",
    'every inclusion proof against the checkpoint, every stored row against its leaf, every piece of',
    'evidence against its row, every attachment against its SHA-256 and its attestation, and that the package',
    'holds every leaf of its selection (a package of format 1 cannot show that: it says so).',
    'Exit status: 0 when all of it holds, 1 naming the first part that fails, 2 for a mistake in the command line.',
  ].join('\n'),
  options: { key: { type: 'string' } },
  positionals: true,
  flags: [
    ['FILE.tar.gz', 'the audit package'],
    ['--key VERIFIER_KEY', "the log's verifier key (as `GET /api/v2/log/ORG/key` serves it), or a file holding it; obtain it yourself, not from the package"],
  ],
  async run({ values, positionals }) {
    const [file, ...more] = positionals;
    if (!file || more.length) throw new UsageError('give one package file');
    const key = verifierKey(values.key);
    if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`no package at ${file}`);
    try {
      const verified = await verifyPackage(() => createReadStream(file), key);
      process.stdout.write(
        `OK: ${verified.records} records and ${verified.attachments} attachments of ${verified.manifest.organization} are in ${verified.checkpoint.origin} at size ${verified.checkpoint.size}${verified.verdicts ? `; ${verified.verdicts} verdicts judged again from their evidence, each the same` : ''}\n`,
      );
      const selection = describeSelection(verified.manifest.selection);
      if (verified.completeness.proven)
        process.stdout.write(`complete: the package holds every leaf of its selection (${selection}), checked against the signed tree\n`);
      for (const warning of verified.completeness.warnings) process.stdout.write(`warning: NOT PROVEN: ${warning}\n`);
      if (!verified.packageKeyMatches)
        process.stdout.write("note: the package's own key file is another key than --key (the package was checked with --key)\n");
    } catch (error) {
      if (error instanceof PackageVerificationError) throw new Error(`FAILED (${error.reason}) ${error.message}`);
      throw error;
    }
  },
});

export const verifyCheckpointCommand = defineCommand({
  name: 'verify-checkpoint',
  synopsis: 'OLD NEW --key VERIFIER_KEY (--proof FILE | --server URL --org ORG [--token TOKEN])',
  summary: [
    'Proves that the checkpoint in the file NEW extends the one in OLD (RFC 9162 consistency proof): both',
    'signed by the key, of one log, and the older tree a prefix of the newer. The proof comes from a file',
    '(--proof, a JSON array of base64 hashes) or from a server (GET /api/v2/log/ORG/proof/consistency).',
    'A history rewritten since OLD was signed fails. Exit status: 0 when NEW extends OLD, 1 when it does not',
    'or the proof cannot be read, 2 for a mistake in the command line.',
  ].join('\n'),
  options: { key: { type: 'string' }, proof: { type: 'string' }, server: { type: 'string' }, org: { type: 'string' }, token: { type: 'string' } },
  positionals: true,
  flags: [
    ['OLD', 'a file holding the older signed checkpoint (kept from before)'],
    ['NEW', 'a file holding the newer signed checkpoint'],
    ['--key VERIFIER_KEY', "the log's verifier key, or a file holding it"],
    ['--proof FILE', "the consistency proof from OLD's size to NEW's (offline)"],
    ['--server URL', 'fetch the proof from this Trailproof server instead (e.g. https://trailproof.example.com)'],
    ['--org ORG', 'the organisation whose log it is (with --server)'],
    ['--token TOKEN', 'an API token of ORG, a read token will do (with --server; default TRAILPROOF_API_TOKEN)'],
  ],
  environment: [['TRAILPROOF_API_TOKEN', 'the token for --server when --token is not given']],
  async run({ values, positionals }) {
    if (positionals.length !== 2) throw new UsageError('give two checkpoint files: OLD NEW');
    const [older, newer] = positionals.map((file) => {
      if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`no checkpoint file at ${file}`);
      return readFileSync(file);
    }) as [Buffer, Buffer];
    const key = verifierKey(values.key);
    if ((values.proof === undefined) === (values.server === undefined)) throw new UsageError('give --proof FILE or --server URL, one of them');
    try {
      const proofJson =
        values.proof !== undefined
          ? readJsonFile(values.proof)
          : await fetchProof(values.server!, values.org, values.token ?? process.env.TRAILPROOF_API_TOKEN, older, newer);
      const proof = decodeProof(Array.isArray(proofJson) ? proofJson : (proofJson as { proof?: unknown })?.proof);
      const checked = verifyCheckpointConsistency({ older, newer, proof, verifierKey: key });
      process.stdout.write(`OK: ${checked.newer.origin} at size ${checked.newer.size} extends size ${checked.older.size}\n`);
    } catch (error) {
      if (error instanceof VerificationError) throw new Error(`FAILED (${error.reason}) ${error.message}`);
      throw error;
    }
  },
});

function readJsonFile(file: string): unknown {
  if (!existsSync(file)) throw new Error(`no proof file at ${file}`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`${file} is not JSON: a proof is a JSON array of base64 hashes`);
  }
}

/** The consistency proof between the two checkpoints' sizes, from the server's API. */
async function fetchProof(server: string, org: string | undefined, token: string | undefined, older: Buffer, newer: Buffer): Promise<unknown> {
  if (!org) throw new UsageError('--server needs --org ORG');
  if (!token) throw new UsageError('--server needs --token TOKEN (or TRAILPROOF_API_TOKEN)');
  const [from, to] = [older, newer].map(sizeOf) as [number, number];
  // A newer checkpoint of a smaller tree is a history cut short: no proof can exist, none is fetched.
  if (from > to) throw new VerificationError('size-order', `the older checkpoint has ${from} leaves, the newer only ${to}`);
  const base = server.replace(/\/+$/, '').replace(/\/api\/v2$/, '');
  let url: URL;
  try {
    url = new URL(`${base}/api/v2/log/${encodeURIComponent(org)}/proof/consistency?from=${from}&to=${to}`);
  } catch {
    throw new UsageError(`--server takes a URL, not '${server}'`);
  }
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url.origin} answered ${response.status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${url.origin} answered something that is not JSON`);
  }
}

/** The tree size line of a checkpoint note (its second line), unverified: the proof is checked against the signed one. */
function sizeOf(note: Buffer): number {
  const size = note.toString('utf8').split('\n')[1] ?? '';
  if (!/^(0|[1-9][0-9]*)$/.test(size))
    throw new VerificationError('malformed-checkpoint', 'a checkpoint file does not hold a checkpoint (no tree size on its second line)');
  return Number(size);
}
