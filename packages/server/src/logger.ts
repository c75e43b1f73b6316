/** Structured logging with pino: one JSON object per line. Tokens are never logged. */
import { pino, type DestinationStream, type LevelWithSilent, type Logger as PinoLogger } from 'pino';

/**
 * What the server logs through: a pino logger fits, and so does any object with these methods
 * (an embedding host's own logger). Each entry carries its message as `msg`.
 */
export interface Logger {
  info(entry: Record<string, unknown>): void;
  error(entry: Record<string, unknown>): void;
  /** The store calls of each request (createApp), when `isLevelEnabled('debug')` says so. */
  debug?(entry: Record<string, unknown>): void;
  isLevelEnabled?(level: string): boolean;
}

export type LoggerLevel = LevelWithSilent;
/** @deprecated The name before "log" came to mean the transparency log only: use `LoggerLevel`. */
export type LogLevel = LoggerLevel;
export const loggerLevels: readonly LoggerLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The level `LOG_LEVEL` names (`info` when unset or empty); throws on another value. */
export function loggerLevelOf(value: string | undefined): LoggerLevel {
  const level = (value || 'info').trim().toLowerCase();
  if (!loggerLevels.includes(level as LoggerLevel)) throw new RangeError(`LOG_LEVEL must be one of ${loggerLevels.join(', ')}, not '${value}'`);
  return level as LoggerLevel;
}

export interface LoggerOptions {
  /** `info` by default. */
  level?: LoggerLevel;
  /** Where lines go: stdout by default, written asynchronously (pino flushes it when the process exits). */
  destination?: DestinationStream;
  /** Fields of every line (a pool's worker number, `serve --workers`). */
  fields?: Record<string, unknown>;
}

/**
 * A pino logger writing the lines the server has always written: `level` as a name, `time` as an
 * ISO date, no pid or hostname. Stdout is written off the request path: pino's asynchronous
 * destination gathers the lines that come while a write is under way into the next one.
 */
export function createLogger(options: LoggerOptions = {}): PinoLogger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.fields,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** True when `logger` takes debug lines. */
export const debugEnabled = (logger: Logger): logger is Logger & Required<Pick<Logger, 'debug'>> => !!logger.debug && !!logger.isLevelEnabled?.('debug');

/** Discards everything; for embedding hosts that log themselves, and for tests. */
export const silentLogger: Logger = { info() {}, error() {} };
