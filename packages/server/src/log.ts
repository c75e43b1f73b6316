/** Structured logging: one JSON object per line. Tokens are never logged. */
export interface Logger {
  info(entry: Record<string, unknown>): void;
  error(entry: Record<string, unknown>): void;
}

/**
 * Writes one JSON line per entry to the given stream (stdout by default). The lines of one turn
 * of the event loop go out in one write at its end, instead of a write (a system call, on a pipe
 * or a file) per request; errors, and the last lines before the process exits, are written at once.
 */
export function jsonLogger(stream: NodeJS.WritableStream = process.stdout): Logger {
  let pending = '';
  const flush = () => {
    unflushed.delete(flush);
    if (!pending) return;
    const lines = pending;
    pending = '';
    stream.write(lines);
  };
  const line = (level: string, entry: Record<string, unknown>) => JSON.stringify(Object.assign({ time: new Date().toISOString(), level }, entry)) + '\n';
  return {
    info(entry) {
      if (!pending) {
        setImmediate(flush);
        unflushed.add(flush);
      }
      pending += line('info', entry);
    },
    error(entry) {
      pending += line('error', entry);
      flush();
    },
  };
}

/** Loggers with lines not yet written: written when the process exits before its next turn. */
const unflushed = new Set<() => void>();
process.on('exit', () => {
  for (const flush of unflushed) flush();
});

/** Discards everything; for embedding hosts that log themselves, and for tests. */
export const silentLogger: Logger = { info() {}, error() {} };
