/**
 * Request bodies the server does not read: answered so that the client still reads the status.
 * A client that is still sending when the server answers and closes gets EPIPE or ECONNRESET
 * on its write, and many (Node's `fetch` among them) report that instead of the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Requests whose client waits for `100 Continue` before it sends the body (server.ts 'checkContinue'). */
const awaitingContinue = new WeakSet<IncomingMessage>();

/** Marks `req` as waiting for `100 Continue`: sent by `grantContinue`, once the request is accepted. */
export function expectContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

/**
 * Tells a client that sent `Expect: 100-continue` to send its body; call it once the token and
 * the declared size were accepted. Elsewhere (a host app's server) Node sent it already.
 */
export function grantContinue(req: IncomingMessage, res: ServerResponse): void {
  if (awaitingContinue.delete(req)) res.writeContinue();
}

/** True when the client closed its connection before the request's body was read. */
export function clientClosed(req: IncomingMessage): boolean {
  return !req.complete && (req.readableAborted || req.destroyed || req.socket.destroyed);
}

/** The declared `Content-Length` as a number; undefined when absent (chunked) or not a length. */
export function declaredLength(req: IncomingMessage): number | undefined {
  const raw = req.headers['content-length'];
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * How long the server reads and discards a refused body before it answers anyway and closes:
 * up to the 60 s the server gives a whole request (its requestTimeout). Under load many
 * refused bodies come at once, each slowly, and a client cut off half-way sees EPIPE.
 */
const discardMs = 60_000;

/**
 * Before an error answer to a request whose body is unread: reads and discards the rest of
 * the body, at most `maxBytes` (see `discardMs` for the time), so the client finishes sending
 * and then reads the answer on a connection that stays usable. Resolves false when the body was
 * not all read (too large, too slow, or its client waits for `100 Continue`): answer with
 * `Connection: close`.
 */
export async function discardBody(req: IncomingMessage, maxBytes: number): Promise<boolean> {
  if (req.complete) return true;
  if (awaitingContinue.has(req) || clientClosed(req)) return false;
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) return false;
  return new Promise<boolean>((resolve) => {
    let read = 0;
    const done = (whole: boolean) => {
      clearTimeout(timer);
      req.off('data', count).off('end', ended).off('close', ended).off('error', ended);
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) done(false);
    };
    const ended = () => done(req.complete);
    const timer = setTimeout(() => done(false), discardMs);
    req.on('data', count).once('end', ended).once('close', ended).once('error', ended);
    // Flowing mode discards the chunks; a parser that stopped half-way (multer) may still read them.
    req.resume();
  });
}

/** Most bytes of a refused body read and discarded after its answer, as nginx's lingering close does. */
const lingerBytes = 64 * 1024 * 1024;
/** Longest time spent so, in all and waiting for the next bytes (nginx's lingering_time and lingering_timeout). */
const lingerMs = 30_000;
const lingerIdleMs = 5_000;

/**
 * For an answer that closes the connection while its request's body is still coming: once the
 * answer is written and the server ends its side, the rest of the body is read and discarded
 * (up to `lingerBytes`, within `lingerMs`, `lingerIdleMs` at most without bytes) before the
 * connection closes. Closed at once, unread bytes make the kernel reset the connection, and a
 * client still sending fails its write (EPIPE) before it reads the answer.
 */
export function lingerAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket;
  if (socket.destroyed || req.complete) return;
  let read = 0;
  let whole: NodeJS.Timeout | undefined;
  let idle: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(whole);
    clearTimeout(idle);
    socket.destroy();
  };
  // Read from now on, or Node's server drops the rest unread; counted while the answer is written too.
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > lingerBytes) return close();
    if (idle) idle.refresh();
  });
  req.resume();
  // Node's server calls destroySoon once the answer that ends the connection is written.
  socket.destroySoon = () => {
    whole = setTimeout(close, lingerMs);
    idle = setTimeout(close, lingerIdleMs);
    // The whole body read, or the client gone: nothing more can come that a close would reset.
    if (req.complete) socket.once('finish', close);
    else req.once('end', () => socket.once('finish', close));
    socket.once('end', close).once('close', close);
    socket.end();
  };
}
