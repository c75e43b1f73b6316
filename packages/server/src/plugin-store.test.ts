/** Plugins get the store without its token administration and lifecycle, in a transaction too. */
import { expect } from 'chai';
import { attestJunit, defineOperation, listEnvironments } from '@trailproof/schema';
import { defaultPlugins, definePlugin } from '@trailproof/server';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

const reach = defineOperation({
  id: 'reachStore',
  summary: 'What a plugin can reach',
  tags: ['Test'],
  method: 'GET',
  path: '/reach/{org}',
  access: 'read',
  params: listEnvironments.params,
  query: listEnvironments.query,
  body: undefined,
  responses: { 200: { description: 'The withheld store methods a handler sees (none)', schema: attestJunit.responses[201].schema } },
});
const withheld = ['insertToken', 'revokeToken', 'close', 'backup'];

const reachPlugin = definePlugin({
  operation: reach,
  async handler({ store }) {
    const reachable = (methods: object) => withheld.filter((name) => name in methods);
    const inside = await store.transaction(async (tx) => reachable(tx));
    return { status: 200, json: JSON.stringify({ outside: reachable(store), inside }) };
  },
});

describe('the store a plugin gets', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => (server = await startTestServer({ plugins: [...defaultPlugins, reachPlugin] })));
  after(() => server.close());

  it("has no insertToken, revokeToken, close or backup, not even in a transaction, while the server's own store has them", async () => {
    const res = await server.request('GET', '/api/v2/reach/acme');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ outside: [], inside: [] });
    expect(typeof server.store.insertToken).to.equal('function');
    expect(typeof server.store.revokeToken).to.equal('function');
  });
});
