/**
 * verifyPackage's memory on packages of huge parts (issue 46, finding 6): each check runs in a
 * child process of its own, which reports its peak resident memory; a package of nine parts of
 * 63 MiB in one record folder, and one whose parts sit just under their bounds in the order that
 * keeps most of them waiting, both stay under a bound far below what holding them would cost.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { fixturePackage, rewritePackage } from './package-fixture.ts';
import { partLimits } from './package-entries.ts';

const mib = 1024 * 1024;
/** Peak RSS a verifying process may reach: Node and tsx (about 110 MB) and the parts a record may hold at once, with room to spare. */
const generousRssBound = 400 * mib;
const verifier = fileURLToPath(new URL('./verify-package.ts', import.meta.url));

/** Writes a gzip tar of `parts` (bytes, or a size of spaces) to `file`, one part in memory at a time. */
async function writeArchive(file: string, parts: Array<[string, Buffer | number]>): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, createGzip({ level: 1 }), createWriteStream(file));
  for (const [name, content] of parts) {
    const bytes = typeof content === 'number' ? Buffer.alloc(content, 0x20) : content;
    await new Promise<void>((resolve, reject) => pack.entry({ name, size: bytes.length }, bytes, (error) => (error ? reject(error) : resolve())));
  }
  pack.finalize();
  await written;
}

/** Verifies `file` in a child process: its outcome (reason and path, or 'verified') and its peak RSS in bytes. */
function verifyInChild(file: string, key: string): Promise<{ outcome: string; maxRssBytes: number }> {
  const script = `
    import { createReadStream } from 'node:fs';
    const { verifyPackage } = await import(${JSON.stringify(verifier)});
    let outcome = 'verified';
    try { await verifyPackage(() => createReadStream(${JSON.stringify(file)}), ${JSON.stringify(key)}); }
    catch (error) { outcome = error.reason ? error.reason + ' ' + error.path : 'threw ' + error.message; }
    process.stdout.write(JSON.stringify({ outcome, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the verifying process exited ${code}: ${err}`))));
  });
}

describe('audit package: verify-package memory stays bounded', function () {
  this.timeout(300_000);
  let dir: string;
  let pkg: Awaited<ReturnType<typeof fixturePackage>>;
  const header: Array<[string, Buffer]> = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-verify-memory-'));
    pkg = await fixturePackage({ extraLeaves: 0, selection: {} });
    await rewritePackage(pkg.bytes, (name, content) => {
      if (!name.startsWith('records/') && !name.startsWith('attachments/')) header.push([name, content]);
      if (name === 'records/0/leaf' || name === 'records/0/proof.json') header.push([name, content]);
      return content;
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a record folder of nine parts of 63 MiB each, naming the first, without holding them', async () => {
    const file = join(dir, 'nine-parts.tar.gz');
    const names = ['row.json', 'trail.json', 'attestation.json', 'snapshot.json', 'approval.json', 'review.json', 'deployments.json', 'leaf', 'proof.json'];
    await writeArchive(file, [
      ...header.filter(([name]) => !name.startsWith('records/')),
      ...names.map((name): [string, number] => [`records/0/${name}`, 63 * mib]),
    ]);
    const { outcome, maxRssBytes } = await verifyInChild(file, pkg.verifierKey);
    expect(outcome).to.equal('malformed-package records/0/row.json');
    expect(maxRssBytes, `peak RSS ${(maxRssBytes / mib).toFixed(0)} MiB`).to.be.below(generousRssBound);
  });

  it('holds parts just under their bounds that wait for the leaf (row, view, deployments before it), and still stays under the bound', async () => {
    const file = join(dir, 'waiting-parts.tar.gz');
    const waiting = ['row.json', 'trail.json', 'deployments.json'].map((name): [string, number] => [`records/0/${name}`, partLimits.json - 1]);
    await writeArchive(file, [
      ...header.filter(([name]) => !name.startsWith('records/')),
      ...waiting,
      ...header.filter(([name]) => name.startsWith('records/')),
    ]);
    const { outcome, maxRssBytes } = await verifyInChild(file, pkg.verifierKey);
    expect(outcome).to.equal('malformed-package records/0/row.json'); // 16 MiB of spaces is not JSON
    expect(maxRssBytes, `peak RSS ${(maxRssBytes / mib).toFixed(0)} MiB`).to.be.below(generousRssBound);
  });
});
