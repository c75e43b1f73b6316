// @database
/** A plugin gets the part of the store it declares and nothing else, in a transaction too; what it may not have, it cannot declare. */
import { expect } from 'chai';
import { attestJunit, defineOperation, listEnvironments } from '@trailproof/schema';
import { createRouter, defaultPlugins, definePlugin, type Plugin } from '@trailproof/server';
import { StoreDeclarationError } from '@trailproof/server/plugin-kit';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

const reachOperation = (id: string, path: string) =>
  defineOperation({
    id,
    summary: 'What a plugin can reach',
    tags: ['Test'],
    method: 'GET',
    path,
    access: 'read',
    params: listEnvironments.params,
    query: listEnvironments.query,
    body: undefined,
    responses: { 200: { description: 'The store members a handler sees', schema: attestJunit.responses[201].schema } },
  });

const parts: object[] = [];
const reachable = (part: object) => Object.keys(part).sort();

const declaring = definePlugin({
  operation: reachOperation('reachDeclared', '/reach/{org}/declared'),
  store: ['findOrganization', 'dialect'],
  transaction: ['findFlow'],
  async handler({ params, store }) {
    parts.push(store);
    const organization = await store.findOrganization(params.org);
    const inside = await store.transaction(async (tx) => ({ keys: reachable(tx), flow: (await tx.findFlow(Number(organization!.id), 'none')) ?? null }));
    return { status: 200, json: JSON.stringify({ outside: reachable(store), inside: inside.keys, flow: inside.flow, dialect: store.dialect }) };
  },
});

const declaringNothing = definePlugin({
  operation: reachOperation('reachNothing', '/reach/{org}/nothing'),
  async handler({ store }) {
    return { status: 200, json: JSON.stringify({ outside: reachable(store) }) };
  },
});

// Type-checked (pnpm typecheck), never routed: what a handler did not declare does not compile.
export const undeclaredDoesNotCompile = definePlugin({
  operation: reachOperation('reachUndeclared', '/reach/{org}/undeclared'),
  store: ['findOrganization'],
  transaction: ['findFlow'],
  async handler({ store }) {
    // @ts-expect-error listFlowPage was not declared
    void store.listFlowPage;
    // @ts-expect-error insertToken is never a plugin's
    void store.insertToken;
    await store.transaction(async (tx) => {
      // @ts-expect-error upsertFlow was not declared for the transaction
      void tx.upsertFlow;
      // @ts-expect-error findOrganization was declared outside the transaction only
      void tx.findOrganization;
    });
    return { status: 200, body: 'never routed' };
  },
});
export const undeclaredTransactionDoesNotCompile = definePlugin({
  operation: reachOperation('reachNoTransaction', '/reach/{org}/no-transaction'),
  store: ['findOrganization'],
  async handler({ store }) {
    // @ts-expect-error no transaction was declared
    void store.transaction;
    return { status: 200, body: 'never routed' };
  },
});
export const nothingDeclaredDoesNotCompile = definePlugin({
  operation: reachOperation('reachNothingTyped', '/reach/{org}/nothing-typed'),
  async handler({ store }) {
    // @ts-expect-error a plugin that declares nothing gets nothing
    void store.findOrganization;
    return { status: 200, body: 'never routed' };
  },
});
export const withheldCannotBeDeclared = definePlugin({
  operation: reachOperation('reachWithheld', '/reach/{org}/withheld'),
  // @ts-expect-error insertToken cannot be declared
  store: ['insertToken'],
  async handler() {
    return { status: 200, body: 'never routed' };
  },
});

describe('the store a plugin gets', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => (server = await startTestServer({ plugins: [...defaultPlugins, declaring, declaringNothing] })));
  after(() => server.close());

  it('has exactly the members the plugin declared, and in a transaction exactly the queries it declared for it', async () => {
    const res = await server.request('GET', '/api/v2/reach/acme/declared');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({
      outside: ['dialect', 'findOrganization', 'transaction'],
      inside: ['findFlow'],
      flow: null,
      dialect: server.store.dialect,
    });
    expect(typeof server.store.insertToken).to.equal('function');
  });

  it('is built once for the router, not per request', async () => {
    parts.length = 0;
    for (let i = 0; i < 2; i++) expect((await server.request('GET', '/api/v2/reach/acme/declared')).status).to.equal(200);
    expect(parts).to.have.length(2);
    expect(parts[0]).to.equal(parts[1]);
  });

  it('is empty for a plugin that declares nothing', async () => {
    const res = await server.request('GET', '/api/v2/reach/acme/nothing');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ outside: [] });
  });
});

describe('declaring the store', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  // As a plugin written in JavaScript, or cast, could declare them.
  const declaringAs = (declaration: object) => ({ ...declaringNothing, ...declaration }) as unknown as Plugin;
  const thrown = (declaration: object) => {
    try {
      createRouter({ store: server.store, plugins: [...defaultPlugins, declaringAs(declaration)] });
    } catch (error) {
      return error as StoreDeclarationError;
    }
    throw new Error('createRouter did not throw');
  };

  it('refuses at start-up what plugins never get: the token administration and the lifecycle, in a transaction too', () => {
    for (const declaration of [
      { store: ['insertToken'] },
      { store: ['findOrganization', 'revokeToken'] },
      { store: ['close'] },
      { store: ['backup'] },
      { transaction: ['insertToken'] },
    ]) {
      const error = thrown(declaration);
      expect(error, JSON.stringify(declaration)).to.be.instanceOf(StoreDeclarationError);
      expect(error.code).to.equal('TRAILPROOF_STORE_DECLARATION');
      expect(error.message).to.match(/^Plugin 'reachNothing' declares '\w+', which plugins never get$/);
    }
  });

  it('refuses at start-up a name that is no member of the store, or no query in a transaction', () => {
    expect(thrown({ store: ['findOrganisation'] }).message).to.equal(
      "Plugin 'reachNothing' declares 'findOrganisation' in its store, which is no member of the store",
    );
    expect(thrown({ transaction: ['dialect'] }).message).to.equal("Plugin 'reachNothing' declares 'dialect' in its transaction, which is no query");
    expect(thrown({ store: ['transaction'] })).to.be.instanceOf(StoreDeclarationError);
  });
});
