import { expect } from 'chai';
import * as contract from '@trailproof/schema';
import { buildOpenApiDocument, fillPath, paths, type Operation } from '@trailproof/schema';

type PathItem = Record<
  string,
  {
    operationId: string;
    parameters: Array<{ name: string; in: string; required: boolean }>;
    requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
  }
>;
type Doc = { openapi: string; servers: Array<{ url: string }>; paths: Record<string, PathItem>; components: { schemas: Record<string, unknown> } };

/** Every operation the package exports. */
const operations = (Object.values(contract) as unknown[]).filter(
  (v): v is Operation => typeof v === 'object' && v !== null && 'id' in v && 'method' in v && 'path' in v && 'responses' in v,
);

describe("the contract's operations and their OpenAPI document", () => {
  const doc = buildOpenApiDocument(operations, { basePath: '/prefix' }) as unknown as Doc;

  it('finds every operation (one per report type among them), each id once', () => {
    const ids = operations.map((o) => o.id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.length).to.equal(71);
  });

  it('is OpenAPI 3.1 under the given base path, with one path item entry per operation', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.servers).to.deep.equal([{ url: '/prefix' }]);
    for (const operation of operations) expect(doc.paths[operation.path]?.[operation.method.toLowerCase()]?.operationId).to.equal(operation.id);
  });

  it('declares every {placeholder} of a path as a required path parameter, and no other', () => {
    for (const operation of operations) {
      const placeholders = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const parameters = doc.paths[operation.path]![operation.method.toLowerCase()]!.parameters.filter((p) => p.in === 'path');
      expect(
        parameters.map((p) => p.name),
        operation.id,
      ).to.deep.equal(placeholders);
      expect(
        parameters.every((p) => p.required),
        operation.id,
      ).to.equal(true);
    }
  });

  it('describes a multipart body as its data_json part and its file parts', () => {
    const body = doc.paths[paths.attestJunit]!.post!.requestBody!.content['multipart/form-data']!.schema;
    expect(Object.keys(body.properties)).to.include.members(['data_json', 'attachment_file']);
  });

  it('takes each path from `paths`, the table clients import without TypeBox', () => {
    for (const operation of operations) {
      if (operation.id in paths) expect(operation.path, operation.id).to.equal(paths[operation.id as keyof typeof paths]);
      else expect(operation.path, operation.id).to.match(/^\/environments\/\{org\}\/\{env_name\}\/report\//);
    }
  });

  it('fills a path with URL-encoded values and refuses a missing one', () => {
    expect(fillPath(paths.attestJunit, { org: 'acme', flow_name: 'a b', trail_name: 'x/y' })).to.equal('/attestations/acme/a%20b/trail/x%2Fy/junit');
    expect(() => fillPath(paths.beginTrail, { org: 'acme' })).to.throw('No value for {flow_name}');
  });
});
