/**
 * The shape of one operation of the API: a plain value that the server, the OpenAPI generator
 * and clients share. Types of params, query, body and responses are derived from the schemas.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

/** A file part of a multipart body. */
export interface FilePart {
  description: string;
  /** Largest accepted size in bytes. */
  maxBytes: number;
}

/**
 * A `multipart/form-data` body: one JSON part (`data_json`, accepted as a plain form field or as
 * a file part) and optional file parts.
 */
export interface MultipartBody<D extends TSchema = TSchema> {
  kind: 'multipart';
  data: D;
  /** The JSON part's name: `data_json` unless the client names it otherwise (the CLI's policies send `payload`). */
  dataField?: string;
  files: Record<string, FilePart>;
}

/** An `application/json` body. */
export interface JsonBody<D extends TSchema = TSchema> {
  kind: 'json';
  data: D;
}

export interface ResponseSpec<S extends TSchema = TSchema> {
  description: string;
  schema: S;
  /** Content type; JSON unless said otherwise. */
  contentType?: string;
}

export interface Operation<
  P extends TObject = TObject,
  Q extends TObject = TObject,
  B extends MultipartBody | JsonBody | undefined = MultipartBody | JsonBody | undefined,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
> {
  /** Unique id, also the OpenAPI operationId. */
  id: string;
  summary: string;
  description?: string;
  tags: string[];
  method: HttpMethod;
  /** Path below `/api/v2`, with `{param}` placeholders. */
  path: string;
  /** What the caller's token must allow; `none` only for public documents. */
  access: 'read' | 'write' | 'none';
  params: P;
  query: Q;
  body: B;
  responses: R;
  /** Named schemas (with `$id`) that this operation references with `$ref` beyond the shared ones. */
  schemas?: TSchema[];
}

/** Declares an operation; the identity function that keeps the literal types. */
export function defineOperation<P extends TObject, Q extends TObject, B extends MultipartBody | JsonBody | undefined, R extends Record<number, ResponseSpec>>(
  operation: Operation<P, Q, B, R>,
): Operation<P, Q, B, R> {
  return operation;
}

/** Path parameters of an operation, as the handler receives them. */
export type ParamsOf<O extends Operation> = Static<O['params']>;
/** Query of an operation after coercion and defaults. */
export type QueryOf<O extends Operation> = Static<O['query']>;
/** The JSON data of the body (`data_json` for multipart operations). */
export type DataOf<O extends Operation> = O['body'] extends { data: infer D extends TSchema } ? Static<D> : undefined;
/** Union of `{ status, body }` that the operation may answer with. */
export type ResultOf<O extends Operation> = {
  [S in keyof O['responses'] & number]: { status: S; body: Static<O['responses'][S]['schema']>; headers?: Record<string, string> };
}[keyof O['responses'] & number];
