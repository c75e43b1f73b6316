/**
 * The request log's own cost: CPU of the whole process (all threads) per request line, pino
 * (`createLogger`, its asynchronous destination) against the hand-written logger it replaced
 * (frozen below), writing to stdout. Run with stdout on a pipe, as a server under a process
 * manager has it:
 *
 *   node --import tsx bench/log-lines.ts | cat > /dev/null
 *
 * Sides take turns (three of each), each turn LINES lines in bursts of BURST per event-loop turn.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createLogger } from '@trailproof/server';

interface Logger {
  info(entry: Record<string, unknown>): void;
}

/** The logger pino replaced (log.ts before issue 35): the lines of one event-loop turn in one write. */
function batchedJsonLogger(stream: NodeJS.WritableStream = process.stdout): Logger {
  let pending = '';
  const flush = () => {
    if (!pending) return;
    const lines = pending;
    pending = '';
    stream.write(lines);
  };
  return {
    info(entry) {
      if (!pending) setImmediate(flush);
      pending += JSON.stringify(Object.assign({ time: new Date().toISOString(), level: 'info' }, entry)) + '\n';
    },
  };
}

const lines = 200_000;
const sides: Array<[string, Logger]> = [
  ['hand-written, batched per turn', batchedJsonLogger()],
  ['pino, asynchronous destination', createLogger()],
];

async function turn(logger: Logger, burst: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < lines; i += burst) {
    for (let j = 0; j < burst; j++) {
      logger.info({
        msg: 'request',
        method: 'POST',
        path: '/api/v2/attestations/acme/app/trail/build-1/junit',
        status: 201,
        duration_ms: 12.34,
        request_id: '6f1c9a52-5b7e-4d8e-9a0c-3f2b1d4e5a6b',
      });
    }
    await nextTurn();
  }
  await nextTurn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / lines;
}

for (const burst of [1, 16]) {
  const results = new Map<string, number[]>(sides.map(([name]) => [name, []]));
  for (let round = 0; round < 3; round++) {
    for (const [name, logger] of round % 2 ? [...sides].reverse() : sides) results.get(name)!.push(await turn(logger, burst));
  }
  for (const [name, micros] of results) process.stderr.write(`${burst} line(s) a turn, ${name}: ${micros.map((m) => m.toFixed(2)).join(', ')} us CPU a line\n`);
}
