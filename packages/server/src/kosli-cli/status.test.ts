// @database
/**
 * `kosli status` and `kosli assert status` as CLI v2.38 sends them. Followed: cmd/kosli/status.go
 * (`url.JoinPath(global.Host, "ready")`: at the host's root, outside /api/v2, with the token as
 * Bearer when one is set; success is 200 or 201, and the body is printed as it is).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { cliSucceeds, sendAsCli } from './go-wire.ts';

describe('Kosli CLI wire format: status', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('GET {host}/ready answers 200 as /readyz does, whatever token the CLI holds (none needed)', async () => {
    for (const token of [server.token, server.readToken, 'not-a-token', '']) {
      const answer = await sendAsCli(server.url, { method: 'GET', path: '/ready', token });
      expect(cliSucceeds(answer.status), `${token}: ${answer.text}`).to.equal(true);
      expect(answer.json).to.deep.equal({ status: 'ok' });
    }
  });
});
