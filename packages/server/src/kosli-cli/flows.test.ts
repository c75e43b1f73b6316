// @database
/**
 * `kosli list flows` and `kosli get flow` as CLI v2.38 sends them and reads the answers. Followed:
 * cmd/kosli/listFlows.go (`run`: page and per_page only with --page or --page-limit,
 * search_by_name with --name, case_sensitive=false with --ignore-case; `printFlowsListAsTable`:
 * an array or `{data, pagination}`, and `flow["tags"].(map[string]interface{})` on every flow with
 * no check) and cmd/kosli/getFlow.go (`printFlowAsTable`: tags read as a map when not null,
 * last_deployment_at through formattedTimestamp: absent, a number or a string).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { goDecodeProblems, goQuery, nullable, sendAsCli, type GoType } from './go-wire.ts';

/** A flow as the list's table reads it: the rest goes through `%s`, which prints anything. */
const listedFlowAsRead: GoType = { tags: 'map' };
const flowAsRead: GoType = { tags: nullable('map'), last_deployment_at: 'float64?' };

describe('Kosli CLI wire format: list flows and get flow', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    for (const name of ['shop', 'api']) {
      const created = await sendAsCli(server.url, {
        method: 'PUT',
        path: '/api/v2/flows/acme',
        token: server.token,
        payload: { name, description: `The ${name}`, visibility: 'private', template: ['unit-test'] },
      });
      expect(created.status, created.text).to.equal(201);
    }
  });
  after(() => server.close());

  const get = async (path: string) => {
    const answer = await sendAsCli(server.url, { method: 'GET', path, token: server.token });
    expect(answer.status, `${path}: ${answer.text}`).to.equal(200);
    return answer;
  };

  for (const [flags, query] of [
    ['no flags', ''],
    [
      '--page 1 --page-limit 20',
      `?${goQuery([
        ['page', '1'],
        ['per_page', '20'],
      ])}`,
    ],
    [
      '--name SH --ignore-case',
      `?${goQuery([
        ['search_by_name', 'SH'],
        ['case_sensitive', 'false'],
      ])}`,
    ],
  ] as const) {
    it(`list flows (${flags}): every flow has tags, an object, as the table reads it`, async () => {
      const answer = await get(`/api/v2/flows/acme${query}`);
      const flows = Array.isArray(answer.json) ? answer.json : answer.json.data;
      expect(flows.length).to.be.greaterThan(0);
      expect(goDecodeProblems(flows, [listedFlowAsRead])).to.deep.equal([]);
      for (const flow of flows) expect(flow.tags).to.deep.equal({});
    });
  }

  it('get flow: tags an object, last_deployment_at absent or a number', async () => {
    const answer = await get('/api/v2/flows/acme/shop');
    expect(goDecodeProblems(answer.json, flowAsRead)).to.deep.equal([]);
    expect(answer.json.tags).to.deep.equal({});
  });
});
