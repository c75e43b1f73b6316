/**
 * The server's memory under concurrent uploads (issue 30, item 5): N attestations with a
 * 10 MB attachment each, sent at once to a `trailproof serve` process on a fresh database
 * (SQLite; PostgreSQL when TRAILPROOF_TEST_DATABASE is set). Prints the answers by status and
 * the server's resident memory before, at its peak (VmHWM) and 10 s after the last answer.
 *
 *   npx tsx bench/upload-memory.ts [--uploads 150] [--megabytes 10] [--senders 10]
 *
 * The uploads come from `senders` threads. The server takes TRAILPROOF_MAX_UPLOAD_BYTES_IN_FLIGHT
 * from this process's environment.
 */
import { parseArgs } from 'node:util';
import { startChildServer } from '../test/hostile/child-server.ts';
import { uploadFromThread } from '../test/hostile/upload-requests.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { uploads: { type: 'string' }, megabytes: { type: 'string' }, senders: { type: 'string' } },
});
const uploads = Number(values.uploads ?? 150);
const megabytes = Number(values.megabytes ?? 10);
const senders = Number(values.senders ?? 10);
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

const server = await startChildServer();
try {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const before = server.memory();
  const started = Date.now();
  // From several threads: one event loop streaming 150 bodies on a busy machine sent some
  // requests' headers over 10 s after connecting, and the server's header time-out closed them.
  const shares = Array.from({ length: senders }, (_, w) => Math.floor(uploads / senders) + (w < uploads % senders ? 1 : 0));
  const answers = (await Promise.all(shares.map((count) => uploadFromThread(server.url, server.token, count, megabytes * 1024 * 1024)))).flat();
  const seconds = (Date.now() - started) / 1000;
  const peak = server.memory().peak;
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const idle = server.memory().rss;
  const counts: Record<string, number> = {};
  for (const { status, body } of answers) {
    const key = status ? String(status) : body;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  process.stdout.write(`${uploads} concurrent uploads of ${megabytes} MB in ${seconds.toFixed(1)} s: ${JSON.stringify(counts)}\n`);
  process.stdout.write(`server RSS: ${mib(before.rss)} MiB before, ${mib(peak)} MiB at peak (VmHWM), ${mib(idle)} MiB 10 s after\n`);
} finally {
  await server.close();
}
