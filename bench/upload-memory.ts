/**
 * The server's memory under concurrent uploads (issue 30, item 5): N attestations with a
 * 10 MB attachment each, sent at once to a `trailproof serve` process on a fresh SQLite file.
 * Prints the answers by status, the server's resident memory before, at its peak (VmHWM) and
 * 10 s after the last answer.
 *
 *   npx tsx bench/upload-memory.ts [--uploads 150] [--megabytes 10] [--senders 10]
 *
 * The uploads are sent from `senders` threads, all at once.
 *
 * The server takes TRAILPROOF_MAX_UPLOAD_BYTES_IN_FLIGHT from this process's environment.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { call, runCli, startServerProcess } from '../test/support/processes.ts';

/** What each sending thread runs (plain JavaScript: a worker gets no TypeScript loader). */
const senderSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, token, indexes, megabytes } = workerData;
// One Blob for every form of this thread: it holds the bytes once.
const content = new Blob([new Uint8Array(megabytes * 1024 * 1024).fill(120)]);
Promise.all(indexes.map(async (i) => {
  const form = new FormData();
  form.append('data_json', JSON.stringify({ attestation_name: 'upload-' + i, is_compliant: true }));
  form.append('attachment_file', content, 'upload-' + i + '.bin');
  try {
    const response = await fetch(url + '/api/v2/attestations/acme/app/trail/t1/generic', { method: 'POST', headers: { authorization: 'Bearer ' + token }, body: form });
    await response.arrayBuffer();
    return String(response.status);
  } catch (error) {
    return 'failed: ' + String(error.cause?.message ?? error);
  }
})).then((statuses) => parentPort.postMessage(statuses));
`;

const { values } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== '--'), options: { uploads: { type: 'string' }, megabytes: { type: 'string' }, senders: { type: 'string' } } });
const uploads = Number(values.uploads ?? 150);
const megabytes = Number(values.megabytes ?? 10);
const senders = Number(values.senders ?? 10);

const dir = mkdtempSync(join(tmpdir(), 'trailproof-upload-memory-'));
const file = join(dir, 'bench.db');
const token = (await runCli(['token', 'create', '--org', 'acme', '--db', file])).trim();
const server = await startServerProcess(['--db', file]);
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
const memory = () => {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
};
try {
  await call(server.url, token, 'PUT', '/api/v2/flows/acme', { json: { name: 'app' } });
  const begin = new FormData();
  begin.append('data_json', JSON.stringify({ name: 't1' }));
  await call(server.url, token, 'PUT', '/api/v2/trails/acme/app', { form: begin });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const before = memory();
  const started = Date.now();
  // Sent from several threads: one event loop streaming 150 bodies on a busy machine sent some
  // requests' headers over 10 s after connecting, and the server's header time-out closed them.
  const shares = Array.from({ length: senders }, (_, w) => Array.from({ length: uploads }, (_, i) => i).filter((i) => i % senders === w));
  const statuses = (await Promise.all(shares.map((indexes) => new Promise<string[]>((resolve, reject) => {
    const worker = new Worker(senderSource, { eval: true, workerData: { url: server.url, token, indexes, megabytes } });
    worker.once('message', resolve).once('error', reject);
  })))).flat();
  const seconds = (Date.now() - started) / 1000;
  const peak = memory().peak;
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const idle = memory().rss;
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  process.stdout.write(`${uploads} concurrent uploads of ${megabytes} MB in ${seconds.toFixed(1)} s: ${JSON.stringify(counts)}\n`);
  process.stdout.write(`server RSS: ${mib(before.rss)} MiB before, ${mib(peak)} MiB at peak (VmHWM), ${mib(idle)} MiB 10 s after\n`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
