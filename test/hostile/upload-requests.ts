/** Requests for the hostile upload tests: forms, `Expect: 100-continue`, bodies cut off half-way. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';

/** The generic attestation route of the trail `app/t1` of `acme`. */
export const generic = '/api/v2/attestations/acme/app/trail/t1/generic';
export const dataJson = JSON.stringify({ attestation_name: 'report', is_compliant: true });

export function uploadForm(bytes: number, fileName = 'report.xml'): FormData {
  const form = new FormData();
  form.append('data_json', dataJson);
  form.append('attachment_file', new Blob([new Uint8Array(bytes).fill(120)]), fileName);
  return form;
}

/**
 * Sends headers with `Expect: 100-continue` and a multipart body of `bytes` declared, and the
 * body only after `100 Continue`. Resolves with whether 100 came and the final status.
 */
export function expectContinue(
  url: string,
  authorization: string,
  bytes: number,
): Promise<{ continued: boolean; status: number; retryAfter?: string; body: string }> {
  const body = Buffer.concat([
    Buffer.from(`--b\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${dataJson}\r\n`),
    bytes
      ? Buffer.concat([
          Buffer.from('--b\r\nContent-Disposition: form-data; name="attachment_file"; filename="a.bin"\r\n\r\n'),
          Buffer.alloc(bytes, 120),
          Buffer.from('\r\n'),
        ])
      : Buffer.alloc(0),
    Buffer.from('--b--\r\n'),
  ]);
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = httpRequest(url + generic, {
      method: 'POST',
      headers: { authorization, expect: '100-continue', 'content-type': 'multipart/form-data; boundary=b', 'content-length': body.length },
    });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ continued, status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** Sends the headers (declaring `declared` bytes) and `part` of the body; resolves with the open connection. */
export async function sendPart(url: string, path: string, method: string, token: string, type: string, part: Buffer, declared: number): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${type}\r\nContent-Length: ${declared}\r\n\r\n`,
  );
  await new Promise<void>((resolve) => socket.write(part, () => resolve()));
  return socket;
}

/** Sends the headers (declaring `declared` bytes) and `part` of the body, then closes the connection. */
export async function abortHalfWay(url: string, path: string, method: string, token: string, type: string, part: Buffer, declared: number): Promise<void> {
  const socket = await sendPart(url, path, method, token, type, part, declared);
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.destroy();
}

/** What a sending thread runs (plain JavaScript: a worker gets no TypeScript loader). */
const senderSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, token, count, bytes } = workerData;
// One Blob for every form: the thread holds the bytes once.
const content = new Blob([new Uint8Array(bytes).fill(120)]);
Promise.all(Array.from({ length: count }, async (_, i) => {
  const form = new FormData();
  form.append('data_json', JSON.stringify({ attestation_name: 'upload-' + i, is_compliant: true }));
  form.append('attachment_file', content, 'upload-' + i + '.bin');
  try {
    const response = await fetch(url + '${generic}', { method: 'POST', headers: { authorization: 'Bearer ' + token }, body: form });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
  } catch (error) {
    return { status: 0, retryAfter: null, body: 'failed: ' + String(error.cause?.message ?? error) };
  }
})).then((answers) => parentPort.postMessage(answers));
`;

export interface UploadAnswer {
  status: number;
  retryAfter: string | null;
  body: string;
}

/**
 * Sends `count` generic attestations with a `bytes` attachment each, all at once, from a thread
 * of its own: the caller's event loop stays free (to time a health probe), and one event loop
 * streaming many bodies on a busy machine sends some requests' headers late.
 */
export function uploadFromThread(url: string, token: string, count: number, bytes: number): Promise<UploadAnswer[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(senderSource, { eval: true, workerData: { url, token, count, bytes } });
    worker
      .once('message', (answers: UploadAnswer[]) => {
        resolve(answers);
        void worker.terminate();
      })
      .once('error', reject);
  });
}
