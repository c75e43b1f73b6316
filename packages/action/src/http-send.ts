/**
 * One HTTP request with node:http(s), not fetch: a server that refuses a request before reading
 * its body (a wrong or expired token) answers and closes the connection while the client is
 * still sending, and the client's write then fails with EPIPE or ECONNRESET. node:http hands
 * over an answer that arrived before that failure; fetch reports only the failure, so the
 * client would lose the server's reason.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text, at most `maxAnswerBytes` of it. */
  text: string;
}

/** Longest answer body kept (the API's answers are small; an error page from a proxy need not be). */
const maxAnswerBytes = 1024 * 1024;

export interface Payload {
  /** A Buffer, not a bare Uint8Array: Node 20 spins on `end(uint8Array)` once the server has reset the connection. */
  bytes: Buffer;
  contentType: string;
}

/** A FormData or JSON value as bytes and content type (FormData's multipart boundary included). */
export async function payloadOf(body: FormData | object): Promise<Payload> {
  if (body instanceof FormData) {
    const encoded = new Response(body);
    return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
  }
  return { bytes: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
}

/**
 * Sends the request; resolves with the answer as soon as it is complete, even if sending the
 * body failed after the answer arrived. Rejects with the network error when no answer came.
 */
export function send(url: string, method: string, headers: Record<string, string>, payload: Payload | undefined, timeoutMs: number): Promise<Answer> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let answered = false;
    const all = payload ? { ...headers, 'content-type': payload.contentType, 'content-length': String(payload.bytes.byteLength) } : headers;
    // A connection per request (`agent: false`): a handful of requests per run, and no idle
    // keep-alive socket left to hold the process or a server open.
    const req = request(target, { method, headers: all, agent: false, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        // Answered: the rest of a body the server did not read is not sent.
        req.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size <= maxAnswerBytes) chunks.push(chunk);
      });
      res.on('end', done);
      // The connection closed under the body of the answer: what arrived is still the server's word.
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(payload?.bytes);
  });
}
