/**
 * Runs the app on a port with graceful shutdown: on SIGTERM/SIGINT stop accepting, let
 * in-flight requests finish, then close the database.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { AppOptions } from './app.ts';
import type { Logger } from './logger.ts';
import type { Store } from './store/types.ts';
import { Slots } from './support/slots.ts';
import { limitConnections } from './connections.ts';
import { expectContinue } from './http/unread-body.ts';
import { probeOkBody } from './http/probe-body.ts';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, waits for in-flight requests (up to `graceMs`), closes the store. */
  close(graceMs?: number): Promise<void>;
}

export interface ServerOptions extends Omit<AppOptions, 'store'> {
  /** The store, or its opening: the port is bound meanwhile (requests other than /livez wait for it). */
  store: Store | Promise<Store>;
  port?: number;
  host?: string;
  handleSignals?: boolean;
  /**
   * How long an idle keep-alive connection stays open (default 65 s). Longer than the idle
   * timeout of the proxies and clients in front (60 s for AWS load balancers and nginx's
   * upstream pools, 4 s to 90 s for common HTTP clients), so that they, not the server, close
   * idle connections: a connection the server closes just as a client reuses it fails that
   * client's request (a 502 from a proxy, EPIPE or ECONNRESET in a client).
   */
  keepAliveTimeoutMs?: number;
  /**
   * Most connections open at once (default 10,000); beyond it new ones are closed as they
   * arrive, and a line `connections refused` is logged at most every 10 s. Idle keep-alive
   * connections count: this keeps clients that hold many open from taking every file
   * descriptor the process has, the database's included.
   */
  maxConnections?: number;
  /**
   * Most connections open at once from one client address (default 1,000): one client cannot
   * take every connection. Behind a proxy every connection comes from the proxy's address.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Connections kept beyond both caps for the health check (default 16): there it is answered,
   * anything else gets 503, and a connection that sends no request within 1 s is closed.
   */
  reservedConnections?: number;
  /** How long a client may take to send a request's headers (default 10 s): slow ones get 408. */
  headersTimeoutMs?: number;
}

/** The defaults of {@link ServerOptions}' connection settings. */
const defaultKeepAliveTimeoutMs = 65_000;
const defaultMaxConnections = 10_000;
const defaultMaxConnectionsPerAddress = 1_000;
const defaultReservedConnections = 16;
const defaultHeadersTimeoutMs = 10_000;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const logger = options.logger ?? (await import('./logger.ts')).createLogger();
  // Limits below the application: headers at most 16 KiB (431 beyond), a whole request at most
  // 60 s, headers within 10 s (slow-loris). Neither counts the idle time between requests on a
  // keep-alive connection, which keepAliveTimeout bounds. Node checks both every
  // connectionsCheckingInterval (30 s by default, which let slow connections stay 30 s past
  // their time-out): every second here.
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? defaultKeepAliveTimeoutMs;
  const headersTimeout = options.headersTimeoutMs ?? defaultHeadersTimeoutMs;
  const server = createServer({
    maxHeaderSize: 16 * 1024,
    requestTimeout: Math.max(60_000, headersTimeout),
    headersTimeout,
    keepAliveTimeout,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  });
  server.on('clientError', answerClientError);
  const maxConnections = options.maxConnections ?? defaultMaxConnections;
  const refused = reportRefusedConnections(server, logger, maxConnections);
  const answeredOnReserve = limitConnections(server, {
    maxConnections,
    maxPerAddress: options.maxConnectionsPerAddress ?? defaultMaxConnectionsPerAddress,
    reserve: options.reservedConnections ?? defaultReservedConnections,
    healthPaths: [`${options.prefix ?? '/api/v2'}/health`, '/livez', '/readyz', '/ready'],
    refused,
  });
  // The port is bound before the app's modules load (Koa, the router, the operations and their
  // contract: most of the start-up), so that /livez answers from the first moment; every other
  // request waits for the app.
  const store = Promise.resolve(options.store);
  const app = loadApp({ ...options, store }, logger);
  app.catch(() => undefined); // awaited once listening; a failure before then is not unhandled
  let handle: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (answeredOnReserve(req, res)) return;
    if (handle) void handle(req, res);
    else if (!answeredLive(req, res)) void app.then((loaded) => loaded(req, res)).catch(() => res.destroy());
  });
  // Expect: 100-continue is answered by the router once the token and the declared size passed
  // (not by Node at once): a refused client then never sends its body.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    expectContinue(req);
    server.emit('request', req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  // Requests being answered. When shutting down, their answers (and any that arrive meanwhile on
  // open connections) say `Connection: close`, so that keep-alive connections end with them
  // instead of idling until keepAliveTimeout and carrying new requests into the shutdown.
  // (Slots, not a Set: see slots.ts.)
  const inFlight = new Slots<ServerResponse>();
  let draining = false;
  server.on('request', (_req, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    const slot = inFlight.add(res);
    res.once('close', () => inFlight.take(slot));
  });

  let closing: Promise<void> | undefined;
  const close = (graceMs = 10_000) =>
    (closing ??= (async () => {
      draining = true;
      for (const res of inFlight.values()) {
        if (!res.headersSent) res.shouldKeepAlive = false;
        else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await stopped;
      clearTimeout(timer);
      await (await store).close();
    })());

  handle = await app.catch((error: unknown) => {
    server.closeAllConnections();
    server.close();
    throw error;
  });

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

/** The app's request handler, once its modules have loaded and the store is open. */
async function loadApp(options: ServerOptions & { store: Promise<Store> }, logger: Logger) {
  const [{ createApp }, store] = await Promise.all([import('./app.ts'), options.store]);
  return createApp({ ...options, store, logger, metrics: options.metrics ?? 'on' }).callback();
}

/** Answers `GET /livez` (HEAD too) as the app's probe does, while the app loads; false for any other request. */
function answeredLive(req: IncomingMessage, res: ServerResponse): boolean {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url?.split('?')[0] !== '/livez') return false;
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(probeOkBody),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : probeOkBody);
  return true;
}

/**
 * Logs connections closed at the caps: the first at once, then a count at most every 10 s.
 * Returns the function to call for each.
 */
function reportRefusedConnections(server: Server, logger: Logger, limit: number): () => void {
  let refused = 0;
  let timer: NodeJS.Timeout | null = null;
  const report = () => {
    if (refused) logger.error({ msg: 'connections refused', limit, refused });
    refused = 0;
  };
  const count = () => {
    refused++;
    if (timer) return;
    report();
    timer = setTimeout(() => {
      timer = null;
      report();
    }, 10_000);
    timer.unref();
  };
  server.on('drop', count);
  return count;
}

/**
 * Requests that Node's HTTP parser refuses before the app sees them (headers over the limit, a
 * malformed request line, a header timeout) get the same JSON error shape as every other error.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex & { bytesWritten?: number }) {
  if (!socket.writable || (socket.bytesWritten ?? 0) > 0 || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message = status === 431 ? 'Request headers too large: at most 16 KiB' : status === 408 ? 'Request timed out' : 'Malformed HTTP request';
  const body = JSON.stringify({ message });
  // Closed once written: the server is allowHalfOpen, and a slow client would keep the connection.
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
