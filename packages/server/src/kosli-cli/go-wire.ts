/**
 * Requests as the Kosli CLI (Go, kosli-dev/cli) puts them on the wire, for the compatibility
 * tests beside this file, and a check of answers against the Go types the CLI decodes them into.
 *
 * Followed: internal/requests/requests.go (`newHTTPRequest`: JSON bodies by json.MarshalIndent with
 * four spaces, `Content-Type: application/json; charset=utf-8` on every request, multipart ones
 * overriding it, `User-Agent: Kosli/<version>`, `Authorization: Bearer <token>` or Basic with the
 * token as password; `createMultipartRequestBody`: one part per FormItem by Go's mime/multipart),
 * and `Do`: only 200 and 201 are success; retryablehttp retries 429 and 5xx but 501.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';

/** A CLI release's `User-Agent` (version.GetVersion()). */
export const userAgent = (version = 'v2.11.24') => `Kosli/${version}`;

/**
 * Go's `json.MarshalIndent(v, "", "    ")`: like JSON.stringify with four spaces, and Go's HTML-safe
 * escapes of `<`, `>`, `&`, U+2028 and U+2029 (json.Marshal escapes them by default).
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One `requests.FormItem`: a JSON field (`data_json`) or a file read from disk. */
export type GoFormItem = { type: 'field'; name: string; content: unknown } | { type: 'file'; name: string; filename: string; bytes: Uint8Array };

const quoteEscape = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/**
 * mime/multipart's Writer as `createMultipartRequestBody` drives it: a random 60-hex-digit boundary,
 * `CreateFormField` (Content-Disposition only), `CreateFormFile` (with filename and
 * `Content-Type: application/octet-stream`), parts joined by CRLF, closed by `--boundary--`.
 */
export function goMultipart(items: readonly GoFormItem[]): { contentType: string; body: Buffer } {
  const boundary = randomBytes(30).toString('hex');
  const chunks: Buffer[] = [];
  items.forEach((item, i) => {
    const head = i === 0 ? `--${boundary}\r\n` : `\r\n--${boundary}\r\n`;
    if (item.type === 'field') {
      chunks.push(Buffer.from(`${head}Content-Disposition: form-data; name="${quoteEscape(item.name)}"\r\n\r\n${goJson(item.content)}`));
    } else {
      chunks.push(
        Buffer.from(
          `${head}Content-Disposition: form-data; name="${quoteEscape(item.name)}"; filename="${quoteEscape(item.filename)}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        Buffer.from(item.bytes),
      );
    }
  });
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}

export interface CliCall {
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  /** Path and query, as the CLI builds them (url.JoinPath or fmt.Sprintf). */
  path: string;
  token: string;
  /** `RequestParams.Token` (Bearer) or `RequestParams.Password` (Basic, user name empty). */
  auth?: 'bearer' | 'basic';
  /** `RequestParams.Payload`: JSON, sent for every method but GET. */
  payload?: unknown;
  /** `RequestParams.Form`: multipart. */
  form?: readonly GoFormItem[];
  version?: string;
}

export interface CliAnswer {
  status: number;
  bytes: Buffer;
  text: string;
  json: any;
}

/** Sends a request with Go net/http's headers in Go's order (Host, User-Agent, Content-Length, the rest sorted, Accept-Encoding). */
export function sendAsCli(baseUrl: string, call: CliCall): Promise<CliAnswer> {
  const url = new URL(call.path, baseUrl);
  let body: Buffer | undefined;
  let contentType = 'application/json; charset=utf-8';
  if (call.form) ({ contentType, body } = goMultipart(call.form));
  else if (call.method !== 'GET') body = Buffer.from(goJson(call.payload ?? null));
  const authorization = call.auth === 'basic' ? `Basic ${Buffer.from(`:${call.token}`).toString('base64')}` : `Bearer ${call.token}`;
  const headers: Record<string, string> = { Host: url.host, 'User-Agent': userAgent(call.version) };
  if (body) headers['Content-Length'] = String(body.length);
  Object.assign(headers, { Authorization: authorization, 'Content-Type': contentType, 'Accept-Encoding': 'gzip' });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: call.method, headers, setHost: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, bytes, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What `Do` counts as success: 200 and 201 only. */
export const cliSucceeds = (status: number) => status === 200 || status === 201;

/** What the CLI retries and then gives up on, printing nothing of the body: 409, 429 and 5xx but 501. */
export const cliRetries = (status: number) => status === 409 || status === 429 || (status >= 500 && status !== 501);

/**
 * A Go type the CLI reads an answer field as: `string`, `int` (refuses `1.5`), `float64`, `bool`, a
 * list (`[T]`), a struct or map read by key (`{ field: T }`); `?` after a scalar, or `nullable()`,
 * for a pointer or a field the CLI tests for nil before reading.
 */
export type GoType =
  | 'string'
  | 'int'
  | 'float64'
  | 'bool'
  | 'string?'
  | 'int?'
  | 'float64?'
  | 'bool?'
  | 'map'
  | GoType[]
  | { [field: string]: GoType }
  | { nullable: GoType };

export const nullable = (type: GoType): GoType => ({ nullable: type });

/** Every place where `value` would crash or fail the CLI's decoding as `type`; empty when it decodes. */
export function goDecodeProblems(value: unknown, type: GoType, at = '$'): string[] {
  if (typeof type === 'object' && !Array.isArray(type) && 'nullable' in type && Object.keys(type).length === 1) {
    return value === null || value === undefined ? [] : goDecodeProblems(value, type.nullable as GoType, at);
  }
  if (typeof type === 'string') {
    const optional = type.endsWith('?');
    if (optional && (value === null || value === undefined)) return [];
    const base = optional ? type.slice(0, -1) : type;
    const ok =
      base === 'string'
        ? typeof value === 'string'
        : base === 'int'
          ? Number.isInteger(value)
          : base === 'float64'
            ? typeof value === 'number'
            : base === 'bool'
              ? typeof value === 'boolean'
              : typeof value === 'object' && value !== null && !Array.isArray(value);
    return ok ? [] : [`${at}: ${JSON.stringify(value)} is not a Go ${base}`];
  }
  if (Array.isArray(type)) {
    if (!Array.isArray(value)) return [`${at}: ${JSON.stringify(value)} is not a list`];
    return value.flatMap((item, i) => goDecodeProblems(item, type[0]!, `${at}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: ${JSON.stringify(value)} is not an object`];
  return Object.entries(type).flatMap(([field, fieldType]) =>
    goDecodeProblems((value as Record<string, unknown>)[field], fieldType as GoType, `${at}.${field}`),
  );
}

/**
 * Go's `url.Values.Encode()`: keys sorted, each key's values in the order added, escaped as
 * `url.QueryEscape` does (letters, digits and `-_.~` as they are, a space as `+`).
 */
export function goQuery(values: ReadonlyArray<readonly [string, string]>): string {
  const escape = (text: string) =>
    Array.from(new TextEncoder().encode(text), (b) => {
      const c = String.fromCharCode(b);
      if (/[A-Za-z0-9\-_.~]/.test(c)) return c;
      return c === ' ' ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }).join('');
  const keys = [...new Set(values.map(([key]) => key))].sort();
  return keys.flatMap((key) => values.filter(([k]) => k === key).map(([, value]) => `${escape(key)}=${escape(value)}`)).join('&');
}

/**
 * Go's `url.PathEscape`: letters, digits, `-_.~` and `$&+:=@` as they are, every other byte as
 * `%XX` (the segment mode of `shouldEscape`). `url.JoinPath` keeps an escaped element as it is.
 */
export function goPathEscape(text: string): string {
  return Array.from(new TextEncoder().encode(text), (b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9\-_.~$&+:=@]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

/**
 * Go's `s[:end]` on a string: the bytes before `end`, or the panic a shorter string makes
 * (`kosli list artifacts` prints `artifact["git_commit"].(string)[:7]` without a check).
 */
export function goSliceTo(value: string, end: number): string {
  const bytes = Buffer.from(value, 'utf8');
  if (end > bytes.length) throw new Error(`panic: runtime error: slice bounds out of range [:${end}] with length ${bytes.length}`);
  return bytes.subarray(0, end).toString('utf8');
}
