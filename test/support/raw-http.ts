/**
 * Requests as bytes: hand-made multipart bodies (broken ones included) and a sender that shows
 * whatever the server answers, for tests that must reach the server without a client's help.
 */
import { request as httpRequest } from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What is wrong with it, for the failure message. */
  why: string;
  /** On a connection of its own, closed after the answer (a kept-alive one stays with the process that accepted it). */
  ownConnection?: boolean;
}

export interface RawAnswer {
  status: number;
  type: string;
  body: string;
}

export interface Part {
  name: string;
  content: Buffer | string;
  filename?: string;
  /** Replaces the whole header block of the part (`''` for a part with no headers at all). */
  rawHeaders?: Buffer | string;
}

/** A `multipart/form-data` body with the parts as given, duplicates and empties included. */
export function multipart(parts: Part[], boundary = 'trailproofBoundary'): { body: Buffer; type: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const headers = part.rawHeaders ?? `Content-Disposition: ${disposition}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\n`), Buffer.from(headers), Buffer.from('\r\n'), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

/** Sends `req` with a bearer token (unless it sets its own Authorization); fails after 15s without an answer. */
export function send(url: string, token: string, req: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, ...req.headers };
    if (req.body) headers['content-length'] = req.body.length;
    const agent = req.ownConnection ? { agent: false as const } : {};
    const r = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.path, headers, timeout: 15_000, ...agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    r.on('timeout', () => r.destroy(new Error(`no answer in 15s: ${req.method} ${req.path.slice(0, 100)} (${req.why})`)));
    // The server may answer (413/415) and close before reading a large body; the answer still counts.
    r.on('error', reject);
    r.end(req.body);
  });
}
