import { expect } from 'chai';
import { buildOpenApiDocument, type Operation } from '@trailproof/schema';
import { defaultPlugins } from '@trailproof/server';

type Doc = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};

describe('the OpenAPI document', () => {
  const operations: Operation[] = defaultPlugins.map((p) => p.operation);
  const doc = buildOpenApiDocument(operations) as unknown as Doc;
  const declared = (operation: Operation) => Object.keys(doc.paths[operation.path]![operation.method.toLowerCase()]!.responses);

  it('describes every operation once, under its path and method', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    expect(ids.sort()).to.deep.equal(operations.map((o) => o.id).sort());
  });

  it('resolves every $ref to a component', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).to.be.greaterThan(10);
    for (const ref of new Set(refs)) expect(doc.components.schemas, ref).to.have.property(ref);
  });

  it('declares the error statuses each kind of route can answer', () => {
    for (const operation of operations) {
      const statuses = declared(operation);
      expect(statuses, operation.id).to.include('503');
      if (operation.method === 'GET') expect(statuses, operation.id).not.to.include('507');
      else expect(statuses, `${operation.id}: writes may find the database full`).to.include('507');
      if (operation.access === 'none') continue;
      expect(statuses, operation.id).to.include.members(['400', '401', '403', '404']);
      if (operation.body) expect(statuses, operation.id).to.include.members(['413', '415']);
    }
    // get approval answers 400 for approval number 0 (its contract names only 200 and 404)
    expect(declared(operations.find((o) => o.id === 'getApproval')!)).to.include('400');
  });
});
