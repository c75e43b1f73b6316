/**
 * A plugin is a plain value: an operation of the contract and the handler that answers it.
 * `createRouter` takes a list of them; nothing is registered globally.
 */
import type { Readable } from 'node:stream';
import type { DataOf, Operation, ParamsOf, QueryOf, ResultOf } from '@trailproof/schema';
import type { Principal } from './auth.ts';
import type { PluginStore } from './plugin-store.ts';

/** An uploaded file part, held in memory (at most 10MB). */
export interface UploadedFile {
  fieldName: string;
  originalName: string;
  mimeType: string;
  size: number;
  buffer: Buffer;
}

/** What a handler receives: validated input, the caller, the store and link helpers. */
export interface HandlerInput<O extends Operation> {
  params: ParamsOf<O>;
  query: QueryOf<O>;
  /** The validated JSON data (`data_json` for multipart operations). */
  data: DataOf<O>;
  /** File parts by name; absent ones are undefined. */
  files: Partial<Record<string, UploadedFile>>;
  principal: Principal;
  /** The store without its token administration and lifecycle (plugin-store.ts). */
  store: PluginStore;
  /** Request time, Unix epoch seconds. */
  now: number;
  /** The path under which the API answers as the client sees it (e.g. `/api/v2`). */
  apiBase: string;
  /** The request's path and query as the client sent them, for `_links`. */
  originalUrl: string;
}

/**
 * A result carries its body as a value (`ResultOf`), or as raw bytes (downloads), or as JSON text
 * already written (`json`: a list page whose items the store wrote as JSON, see `pageBody`). The
 * last two are sent as they are.
 */
export type HandlerResult<O extends Operation> =
  | ResultOf<O>
  | { status: 200; raw: Uint8Array; contentType: string; headers?: Record<string, string> }
  | { status: 200; json: string; headers?: Record<string, string> }
  /** Sent as it is read (an export written while it is sent); a failure midway ends the response early. */
  | { status: 200; stream: Readable; contentType: string; headers?: Record<string, string> };

export interface Plugin<O extends Operation = Operation> {
  operation: O;
  handler(input: HandlerInput<O>): Promise<HandlerResult<O>>;
}

/** Declares a plugin; keeps the operation's types for the handler. */
export function definePlugin<O extends Operation>(plugin: Plugin<O>): Plugin<O> {
  return plugin;
}
