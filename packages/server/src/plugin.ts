/**
 * A plugin is a plain value: an operation of the contract, the part of the store it uses, and the
 * handler that answers it. `createRouter` takes a list of them; nothing is registered globally.
 */
import type { Readable } from 'node:stream';
import type { DataOf, Operation, ParamsOf, QueryOf, ResultOf } from '@trailproof/schema';
import type { Principal } from './auth.ts';
import type { PluginQueryKey, PluginStoreKey, StoreDeclaration } from './plugin-store.ts';
import type { StorePart } from './store/types.ts';

/** An uploaded file part, held in memory (at most 10MB). */
export interface UploadedFile {
  fieldName: string;
  originalName: string;
  mimeType: string;
  size: number;
  buffer: Buffer;
}

/** What a handler receives: validated input, the caller, its part of the store and link helpers. */
export interface HandlerInput<O extends Operation, S extends PluginStoreKey = never, T extends PluginQueryKey = never> {
  params: ParamsOf<O>;
  query: QueryOf<O>;
  /** The validated JSON data (`data_json` for multipart operations). */
  data: DataOf<O>;
  /** File parts by name; absent ones are undefined. */
  files: Partial<Record<string, UploadedFile>>;
  principal: Principal;
  /** The members of the store the plugin declared, and nothing else (plugin-store.ts). */
  store: DeclaredStore<S, T>;
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

/**
 * What a plugin that declares nothing gets of the store: nothing. Its handler calling a query fails
 * to compile with "Property '...' does not exist on type 'NoStoreDeclared'".
 */
// biome-ignore lint/suspicious/noEmptyInterface: a name for the compiler's error message, which `{}` would not give
export interface NoStoreDeclared {}

/** The handler's `store`: what the plugin declared (see `StoreDeclaration`). */
export type DeclaredStore<S extends PluginStoreKey, T extends PluginQueryKey> = [S | T] extends [never] ? NoStoreDeclared : StorePart<S, T>;

export interface Plugin<O extends Operation = Operation, S extends PluginStoreKey = PluginStoreKey, T extends PluginQueryKey = PluginQueryKey>
  extends StoreDeclaration<S, T> {
  operation: O;
  handler(input: HandlerInput<O, S, T>): Promise<HandlerResult<O>>;
}

/**
 * Declares a plugin; keeps the operation's types for the handler, whose `store` has exactly the
 * members listed in `store` (and `store.transaction` with the queries listed in `transaction`).
 */
export function definePlugin<O extends Operation, S extends PluginStoreKey = never, T extends PluginQueryKey = never>(
  plugin: Plugin<O, S, T>,
): Plugin<O, S, T> {
  return plugin;
}
