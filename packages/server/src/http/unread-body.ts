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
