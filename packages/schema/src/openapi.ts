/**
 * Generates the OpenAPI 3.1 document from the operations, so that the document, the validators
 * and the types all come from the same schema objects.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Operation } from './contract.ts';
import { sharedSchemas } from './shared.ts';

export interface OpenApiOptions {
  title?: string;
  version?: string;
  /** Server URL prefix the paths are under; `/api/v2` by default. */
  basePath?: string;
}

type Json = Record<string, unknown>;

/** The OpenAPI 3.1 document describing `operations`. */
export function buildOpenApiDocument(operations: readonly Operation[], options: OpenApiOptions = {}): Json {
  const components: Record<string, Json> = {};
  const addComponent = (schema: TSchema) => {
    if (schema.$id && !components[schema.$id]) components[schema.$id] = toOpenApi(schema, true);
  };
  sharedSchemas.forEach(addComponent);

  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) {
    operation.schemas?.forEach(addComponent);
    const responses: Json = {};
    for (const [status, response] of Object.entries(operation.responses)) {
      addComponent(response.schema);
      responses[status] = {
        description: response.description,
        content: { [response.contentType ?? 'application/json']: { schema: toOpenApi(response.schema) } },
      };
    }
    // What every route of its kind can answer, declared even where the operation does not name it.
    const hasInput = operation.body !== undefined || Object.keys(operation.params.properties).length + Object.keys(operation.query.properties).length > 0;
    if (hasInput) responses['400'] ??= errorResponse('Invalid input: `errors` names each field at fault');
    if (operation.access !== 'none') {
      responses['401'] ??= errorResponse('Missing or invalid token');
      responses['403'] ??= errorResponse('The token may not do this in this organisation');
      if ('org' in operation.params.properties) responses['404'] ??= errorResponse('Organisation (or what the path names in it) not found');
    }
    if (operation.body) {
      responses['413'] ??= errorResponse(operation.body.kind === 'multipart' ? 'A file over 10MB, or too many parts' : 'Body too large');
      responses['415'] ??= errorResponse(`Content type other than ${operation.body.kind === 'multipart' ? 'multipart/form-data' : 'application/json'}`);
    }
    if (operation.method !== 'GET')
      responses['507'] ??= errorResponse('The database is full (no room on its disk, or a SQLite file at its cap): nothing of this request was stored');
    responses['503'] ??= {
      ...errorResponse(
        'The database is unavailable. With `Retry-After`, retry after that many seconds; without it, an operator must act first (a SQLite file moved under the server, or its disk failing)',
      ),
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
    };
    const pathItem = (paths[operation.path] ??= {});
    pathItem[operation.method.toLowerCase()] = {
      operationId: operation.id,
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      tags: operation.tags,
      ...(operation.access === 'none' ? { security: [] } : {}),
      parameters: [
        ...Object.entries(operation.params.properties).map(([name, schema]) => ({
          name,
          in: 'path',
          required: true,
          schema: toOpenApi(schema as TSchema),
        })),
        ...Object.entries(operation.query.properties).map(([name, schema]) => ({
          name,
          in: 'query',
          required: false,
          schema: toOpenApi(schema as TSchema),
          ...((schema as TSchema).type === 'array' ? { style: 'form', explode: true } : {}),
        })),
      ],
      ...(operation.body ? { requestBody: requestBody(operation.body) } : {}),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    info: { title: options.title ?? 'Trailproof API', version: options.version ?? '2' },
    servers: [{ url: options.basePath ?? '/api/v2' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    },
  };
}

function requestBody(body: NonNullable<Operation['body']>): Json {
  if (body.kind === 'json') {
    return { required: true, content: { 'application/json': { schema: toOpenApi(body.data) } } };
  }
  const dataField = body.dataField ?? 'data_json';
  const properties: Json = { [dataField]: toOpenApi(body.data) };
  for (const [name, file] of Object.entries(body.files)) {
    properties[name] = { type: 'string', contentMediaType: 'application/octet-stream', description: file.description, maxLength: file.maxBytes };
  }
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: { type: 'object', required: [dataField], properties },
        encoding: { [dataField]: { contentType: 'application/json' } },
      },
    },
  };
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** A plain-JSON copy of a schema with `$ref`s pointing into `components`. */
function toOpenApi(schema: TSchema, asComponent = false): Json {
  if (schema.$id && !asComponent) return { $ref: `#/components/schemas/${schema.$id}` };
  return JSON.parse(
    JSON.stringify(schema, (key, value) => {
      if (key === '$id') return undefined;
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return `#/components/schemas/${value}`;
      return value;
    }),
  ) as Json;
}
