/**
 * Who may hold a connection: at most `maxConnections` at once and `maxPerAddress` of them from
 * one client address. Beyond either, a small reserve of connections serves the health check
 * only, so a load balancer's probe is answered while slow or idle clients hold every other
 * connection; anything else asked there is answered 503, and a reserve connection that sends
 * no request within a second is closed.
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  maxPerAddress: number;
  /** Connections beyond the caps kept for the health check. */
  reserve: number;
  /** The paths of the health checks (`/api/v2/health`, `/livez`, `/readyz`, `/ready`). */
  healthPaths: readonly string[];
  /** Called for each connection closed or refused at the caps (for the log). */
  refused(): void;
}

/** How long a reserve connection may take to send its request. */
const reserveRequestMs = 1_000;

/**
 * Counts connections as they open and close. Returns the check for each request: true when it
 * came on a reserve connection and was answered here (anything but the health check).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): (req: IncomingMessage, res: ServerResponse) => boolean {
  const fromAddress = new Map<string, number>();
  const reserveFromAddress = new Map<string, number>();
  // One address may take at most a quarter of the reserve, leaving the rest to other addresses.
  const reservePerAddress = Math.max(1, Math.floor(limits.reserve / 4));
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  let open = 0;
  let reserved = 0;
  // Node itself closes connections beyond every cap and the reserve, before any of this.
  server.maxConnections = limits.maxConnections + limits.reserve;

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (open < limits.maxConnections && (fromAddress.get(address) ?? 0) < limits.maxPerAddress) {
      open++;
      add(fromAddress, address, 1);
      socket.once('close', () => {
        open--;
        add(fromAddress, address, -1);
      });
      return;
    }
    if (reserved >= limits.reserve || (reserveFromAddress.get(address) ?? 0) >= reservePerAddress) {
      limits.refused();
      socket.destroy();
      return;
    }
    reserved++;
    add(reserveFromAddress, address, 1);
    timers.set(
      socket,
      setTimeout(() => {
        limits.refused();
        socket.destroy();
      }, reserveRequestMs),
    );
    socket.once('close', () => {
      reserved--;
      add(reserveFromAddress, address, -1);
      clearTimeout(timers.get(socket));
    });
  });

  return (req, res) => {
    const timer = timers.get(req.socket);
    if (timer === undefined) return false;
    clearTimeout(timer);
    // A reserve connection carries one request: the health check, answered at once.
    res.shouldKeepAlive = false;
    if (req.method === 'GET' && limits.healthPaths.includes((req.url ?? '').split('?')[0] ?? '')) return false;
    limits.refused();
    const body = JSON.stringify({ message: 'The server holds as many connections as it may (from your address, or in all); try again shortly' });
    res.writeHead(503, STATUS_CODES[503], {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Retry-After': '1',
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    });
    res.end(body);
    return true;
  };
}

function add(counts: Map<string, number>, address: string, by: number) {
  const count = (counts.get(address) ?? 0) + by;
  if (count > 0) counts.set(address, count);
  else counts.delete(address);
}
