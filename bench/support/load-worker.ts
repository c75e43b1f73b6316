/**
 * Runs autocannon in its own process (so the load generator never shares the server's event
 * loop) and prints its result as JSON. With `stampAt`, every request's body gets a distinct
 * 16-digit counter written at that byte offset, so no two attachments are the same (in this
 * run or in any other load of the benchmark).
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2]!) as {
  url: string; method: string; headers: Record<string, string>; bodyFile?: string; stampAt?: number; connections: number; seconds: number;
};
const body = options.bodyFile ? readFileSync(options.bodyFile) : undefined;
// From a random start: loads run side by side (one per server process) and one after another
// (warm-up, then the measured run), and each must send attachments the others did not.
let counter = randomInt(1, 1_000_000_000) * 1_000_000;
const stamp = (): Buffer => {
  const copy = Buffer.from(body!);
  copy.write(String(++counter).padStart(16, '0'), options.stampAt!, 'latin1');
  return copy;
};

const result = await autocannon({
  url: options.url,
  method: options.method as 'GET',
  headers: options.headers,
  connections: options.connections,
  duration: options.seconds,
  timeout: 30,
  ...(body && options.stampAt === undefined ? { body } : {}),
  ...(body && options.stampAt !== undefined ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: stamp() }) }] } : {}),
});
process.stdout.write(JSON.stringify(result));
