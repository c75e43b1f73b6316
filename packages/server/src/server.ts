/**
 * Runs the app on a port with graceful shutdown: on SIGTERM/SIGINT stop accepting, let
 * in-flight requests finish, then close the database.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppOptions } from './app.ts';
import { jsonLogger } from './log.ts';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, waits for in-flight requests (up to `graceMs`), closes the store. */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(options: AppOptions & { port?: number; host?: string; handleSignals?: boolean }): Promise<RunningServer> {
  const logger = options.logger ?? jsonLogger();
  const app = createApp({ ...options, logger });
  // Limits below the application: headers at most 16 KiB (431 beyond), a whole request at most
  // 60 s, headers within 20 s (slow-loris), idle keep-alive connections closed after 5 s.
  const server = createServer({ maxHeaderSize: 16 * 1024, requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 }, app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = (graceMs = 10_000) => (closing ??= (async () => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    await stopped;
    clearTimeout(timer);
    await options.store.close();
  })());

  if (options.handleSignals) {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ msg: 'shutting down', signal });
      void close().then(() => {
        logger.info({ msg: 'stopped' });
        process.exit(0);
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { server, url, close };
}
