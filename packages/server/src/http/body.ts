/**
 * Multipart bodies: every busboy limit set, files held in memory (10MB at most), `data_json`
 * accepted as a plain form field (as the real CLI sends it) or as a file part.
 */
import multer, { type MulterFile } from '@koa/multer';
import type { Context, Next } from 'koa';
import { limits, type FieldErrors, type MultipartBody } from '@trailproof/schema';
import { ApiError, badRequest } from './errors.ts';
import type { UploadedFile } from '../plugin.ts';
import { skippedParts, watchedParts, watchingStreamHandler, type WatchedParts } from './multipart-parts.ts';
import { nextTurn } from '../support/turns.ts';

/** Largest nesting depth accepted in `data_json`. */
const maxJsonDepth = 32;

export interface ParsedMultipart {
  data: unknown;
  files: Partial<Record<string, UploadedFile>>;
}

/** Middleware that parses the body for `body` and leaves `ctx.state.multipart`. */
export function multipartParser(body: MultipartBody) {
  const dataField = body.dataField ?? 'data_json';
  const fileNames = Object.keys(body.files);
  const maxFileBytes = Math.max(limits.dataJsonBytes, ...Object.values(body.files).map((f) => f.maxBytes));
  const upload = multer({
    storage: multer.memoryStorage(),
    // RFC 7578: file names are UTF-8 (busboy's default, latin1, garbles non-ASCII names).
    defParamCharset: 'utf8',
    limits: {
      fileSize: maxFileBytes,
      files: fileNames.length + 1,
      fields: 4,
      parts: fileNames.length + 5,
      fieldSize: limits.dataJsonBytes,
      fieldNameSize: 100,
      headerPairs: 50,
      fieldNestingDepth: 0,
      fieldArrayIndexLimit: 0,
    },
    // Checked as each file part begins, before its content is read.
    fileFilter: (_req, file, accept) => accept(fileNameProblem(file.fieldname, file.originalname) ?? null, true),
    streamHandler: watchingStreamHandler(new Set([dataField, ...fileNames])),
  }).fields([{ name: dataField, maxCount: 1 }, ...fileNames.map((name) => ({ name, maxCount: 1 }))]);

  return async function parseMultipart(ctx: Context, next: Next) {
    if (!ctx.is('multipart/form-data')) {
      throw new ApiError(415, `Unsupported content type: send multipart/form-data with a ${dataField} part`);
    }
    await upload(ctx, async () => {});
    const fields = (ctx.request as { body?: Record<string, unknown> }).body ?? {};
    const uploaded = ((ctx as { files?: Record<string, MulterFile[]> }).files ?? {}) as Record<string, MulterFile[]>;

    const unknown = Object.keys(fields).filter((name) => name !== dataField);
    if (unknown.length) throw badRequest('Unknown form fields', Object.fromEntries(unknown.map((n) => [n, 'is not a known part'])));

    const watched = watchedParts(ctx.req)!;
    refuseUnreadParts(watched);
    const nameless = namelessFiles(watched, uploaded, fields);

    const files: Partial<Record<string, UploadedFile>> = {};
    for (const name of fileNames) {
      const file = uploaded[name]?.[0] ?? nameless.get(name);
      if (!file) continue;
      if (file.size > body.files[name]!.maxBytes)
        throw new ApiError(413, `File too large: ${name} may be at most ${body.files[name]!.maxBytes} bytes`, { [name]: 'is too large' });
      // The file name is stored with the evidence, so it obeys the same text rule as data_json.
      const nameProblem = textProblem(file.originalname);
      if (nameProblem) throw badRequest('The file name cannot be stored', { [name]: `file name ${nameProblem}` });
      files[name] = { fieldName: name, originalName: file.originalname, mimeType: file.mimetype, size: file.size, buffer: file.buffer };
    }

    const dataFile = uploaded[dataField]?.[0] ?? nameless.get(dataField);
    if (dataFile && fields[dataField] !== undefined) throw badRequest(`${dataField} was sent twice`, { [dataField]: 'send it once' });
    if (dataFile && dataFile.size > limits.dataJsonBytes)
      throw new ApiError(413, `${dataField} is too large`, { [dataField]: `may be at most ${limits.dataJsonBytes} bytes` });
    const text = dataFile ? decodeUtf8(dataFile.buffer, dataField) : fields[dataField];
    if (text === undefined) throw badRequest(`The ${dataField} part is required`, { [dataField]: 'is required' });
    if (typeof text !== 'string') throw badRequest(`${dataField} was sent twice`, { [dataField]: 'send it once' });
    ctx.state.multipart = { data: parseJson(text, dataField), files } satisfies ParsedMultipart;
    return next();
  };
}

/**
 * Refuses a body with a part busboy skipped (a missing or unreadable Content-Disposition, or a
 * part after the closing boundary) or one sent with a Content-Transfer-Encoding, whose bytes
 * busboy passes on encoded: stored, the evidence would not be what the client meant.
 */
function refuseUnreadParts(watched: WatchedParts): void {
  const skipped = skippedParts(watched);
  if (Object.keys(skipped).length) throw badRequest('A part of the multipart body cannot be read', skipped);
  if (watched.encoded.size) {
    const errors = Object.fromEntries(
      [...watched.encoded].map(([part, encoding]) => [part, `has Content-Transfer-Encoding ${encoding}, which is not decoded: send the bytes as they are`]),
    );
    throw badRequest('Content-Transfer-Encoding is not supported (RFC 7578)', errors);
  }
}

/**
 * File parts without a usable file name (multer drops them), as multer's files, named after
 * their part: refused when the part is unknown or was sent twice.
 */
function namelessFiles(watched: WatchedParts, uploaded: Record<string, MulterFile[]>, fields: Record<string, unknown>): Map<string, MulterFile> {
  const files = new Map<string, MulterFile>();
  for (const file of watched.nameless) {
    const kept = watched.kept.has(file.part);
    if (!kept) throw badRequest('Unknown form fields', { [file.part]: 'is not a known part' });
    if (files.has(file.part) || uploaded[file.part]?.length || fields[file.part] !== undefined)
      throw badRequest(`${file.part} was sent twice`, { [file.part]: 'was sent twice: send it once' });
    if (file.truncated) throw new ApiError(413, `File too large: ${file.part} is over the limit`, { [file.part]: 'is too large' });
    files.set(file.part, { fieldname: file.part, originalname: file.part, mimetype: file.mimeType, size: file.buffer.length, buffer: file.buffer });
  }
  return files;
}

/** A 400 naming the part when its file name is longer than `limits.fileNameBytes` (UTF-8). */
function fileNameProblem(part: string, name: string): ApiError | undefined {
  const bytes = Buffer.byteLength(name);
  if (bytes <= limits.fileNameBytes) return undefined;
  return badRequest('The file name is too long', { [part]: `file name may be at most ${limits.fileNameBytes} bytes (UTF-8), not ${bytes}` });
}

function decodeUtf8(buffer: Buffer, field = 'data_json'): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    throw badRequest(`${field} is not valid UTF-8`, { [field]: 'is not valid UTF-8' });
  }
}

/** Parses JSON text, refusing what is not JSON or nests deeper than `maxJsonDepth`. */
export function parseJson(text: string, field = 'data_json'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`${field} is not valid JSON`, { [field]: (error as Error).message });
  }
  if (depth(value, 0) > maxJsonDepth) throw badRequest(`${field} nests too deeply`, { [field]: `may nest at most ${maxJsonDepth} levels` });
  // Parsed strings hold a NUL or a surrogate only where the text has one, raw or as a \u escape:
  // text with neither needs no walk of every string (most bodies).
  if (unstorable.test(text) || mayEscapeUnstorable.test(text)) assertStorableText(value, '', field);
  return value;
}

/** A `\u` escape of NUL or of a surrogate (or a false alarm such as `\\u0000`, which the walk clears). */
const mayEscapeUnstorable = /\\u(?:0000|[dD][89a-fA-F])/;

/** A NUL character, or a UTF-16 surrogate without its other half. */
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | undefined {
  const found = unstorable.exec(text)?.[0];
  if (found === undefined) return undefined;
  return found === '\u0000' ? 'must not contain NUL characters (\\u0000)' : 'must be valid Unicode text (it has a lone surrogate)';
}

/**
 * Refuses, with a 400 naming each field, text that no database keeps as sent: PostgreSQL
 * rejects NUL characters in text and JSON, and a lone UTF-16 surrogate is not Unicode (it is
 * stored as U+FFFD, silently altering the evidence, or refused, depending on the column).
 * Checked once, here, so SQLite and PostgreSQL answer alike. Fields are named like validation
 * errors: `prefix` + the dotted path (`git_commit_info.message`, `query.env_name`), `root` for
 * the value itself; a bad object key is reported on its object.
 */
export function assertStorableText(value: unknown, prefix: string, root: string): void {
  const errors: FieldErrors = {};
  let count = 0;
  const visit = (node: unknown, path: string) => {
    if (count >= maxReportedTextErrors) return;
    const field = path ? prefix + path : root;
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem && !(field in errors)) (errors[field] = problem), count++;
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      const problem = Array.isArray(node) ? undefined : textProblem(key);
      if (problem && !(field in errors)) (errors[field] = `has a key that ${problem}`), count++;
      visit(child, path ? `${path}.${key}` : key);
    }
  };
  visit(value, '');
  if (count) throw badRequest('Text that cannot be stored: NUL characters and lone surrogates are refused', errors);
}

/** Largest number of fields reported for unstorable text, as for validation errors. */
const maxReportedTextErrors = 50;

function depth(value: unknown, level: number): number {
  if (level > maxJsonDepth || value === null || typeof value !== 'object') return level;
  let deepest = level;
  // Walked in place: Object.values would make an array per object on every request's body.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && deepest <= maxJsonDepth; i++) deepest = Math.max(deepest, depth(value[i], level + 1));
    return deepest;
  }
  for (const key in value) {
    deepest = Math.max(deepest, depth((value as Record<string, unknown>)[key], level + 1));
    if (deepest > maxJsonDepth) break;
  }
  return deepest;
}

/** Largest JSON request body. */
const maxJsonBodyBytes = limits.dataJsonBytes;
/** A body past which parsing takes milliseconds (a report of 5,000 artifacts is about 600 KB). */
const bigBodyBytes = 64 * 1024;

/** Reads an `application/json` body (bounded) into `ctx.state.jsonBody`. */
export async function parseJsonBody(ctx: Context, next: Next) {
  if (!ctx.is('application/json')) throw new ApiError(415, 'Unsupported content type: send application/json');
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxJsonBodyBytes) throw new ApiError(413, `Body too large: at most ${maxJsonBodyBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxJsonBodyBytes) throw new ApiError(413, `Body too large: at most ${maxJsonBodyBytes} bytes`);
    chunks.push(chunk);
  }
  ctx.state.jsonBody = parseJson(decodeUtf8(Buffer.concat(chunks), 'body'), 'body');
  // A big body took tens of ms to parse, and its validation as long again: not in one stretch.
  if (size > bigBodyBytes) await nextTurn();
  return next();
}
