/**
 * Runs autocannon in its own process (so the load generator never shares the server's event
 * loop) and prints its result as JSON, with `exactLatency`: p50 and p99 of every answer's time as
 * autocannon measures it, in fractions of a millisecond (its own histogram keeps whole
 * milliseconds, too coarse for targets of a few). With `stampAt`, every request's body gets a distinct
 * 16-digit counter written at that byte offset, so no two attachments are the same (in this
 * run or in any other load of the benchmark).
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2]!) as {
  url: string;
  method: string;
  headers: Record<string, string>;
  bodyFile?: string;
  stampAt?: number;
  pathsFile?: string;
  connections: number;
  seconds: number;
};
// With `pathsFile` (one path a line), each request asks for the next path in turn (random proofs, say), from a random start.
const paths = options.pathsFile ? readFileSync(options.pathsFile, 'utf8').split('\n').filter(Boolean) : [];
let nextPath = paths.length ? randomInt(0, paths.length) : 0;
const pathOf = () => paths[nextPath++ % paths.length]!;
const body = options.bodyFile ? readFileSync(options.bodyFile) : undefined;
// From a random start: loads run side by side (one per server process) and one after another
// (warm-up, then the measured run), and each must send attachments the others did not.
let counter = randomInt(1, 1_000_000_000) * 1_000_000;
const stamp = (): Buffer => {
  const copy = Buffer.from(body!);
  copy.write(String(++counter).padStart(16, '0'), options.stampAt!, 'latin1');
  return copy;
};

const loadOptions = {
  url: options.url,
  method: options.method as 'GET',
  headers: options.headers,
  connections: options.connections,
  duration: options.seconds,
  timeout: 30,
  ...(body && options.stampAt === undefined ? { body } : {}),
  ...(body && options.stampAt !== undefined ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: stamp() }) }] } : {}),
  ...(paths.length ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: pathOf() }) }] } : {}),
};
// Every answer's time in ms (autocannon measures it with hrtime), 2xx or not, as its histogram counts.
let latencies = new Float64Array(1 << 16);
let count = 0;
const result = await new Promise<autocannon.Result>((resolve, reject) => {
  const run = autocannon(loadOptions, (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result)));
  run.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const larger = new Float64Array(count * 2);
      larger.set(latencies);
      latencies = larger;
    }
    latencies[count++] = responseTime;
  });
});
const sorted = latencies.subarray(0, count).sort();
// Nearest rank: the smallest time at or above which the slowest (1 - q) of answers lie.
const percentile = (q: number) => (count ? sorted[Math.max(0, Math.ceil(q * count) - 1)]! : 0);
process.stdout.write(JSON.stringify({ ...result, exactLatency: { p50: percentile(0.5), p99: percentile(0.99), count } }));
