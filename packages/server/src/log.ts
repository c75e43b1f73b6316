/** Structured logging: one JSON object per line. Tokens are never logged. */
export interface Logger {
  info(entry: Record<string, unknown>): void;
  error(entry: Record<string, unknown>): void;
}

/** Writes one JSON line per entry to the given stream (stdout by default). */
export function jsonLogger(stream: NodeJS.WritableStream = process.stdout): Logger {
  const write = (level: string, entry: Record<string, unknown>) =>
    stream.write(JSON.stringify({ time: new Date().toISOString(), level, ...entry }) + '\n');
  return { info: (entry) => write('info', entry), error: (entry) => write('error', entry) };
}

/** Discards everything; for embedding hosts that log themselves, and for tests. */
export const silentLogger: Logger = { info() {}, error() {} };
