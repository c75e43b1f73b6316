// @database
/**
 * A big report does not hold the event loop from start to end (issue 47): on SQLite every
 * statement runs synchronously, so a report of 5,000 artifacts (its reads, the snapshot, 5,000
 * deployments and events) ran in one stretch in which no health probe or other request was
 * answered. Counted as turns of the event loop, which do not depend on the machine's speed.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { maxReportArtifacts } from '@trailproof/schema';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { applyEnvironmentReport } from './environment-report.ts';
import { runningArtifacts } from './running.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** How many turns of the event loop ran while `work` ran. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const result = await work();
  counting = false;
  return { result, turns };
}

describe('applyEnvironmentReport: a big report', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it(`lets the event loop run between its steps for ${maxReportArtifacts} artifacts (each step's statements, 500 rows each)`, async () => {
    expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'big', type: 'server' } })).status).to.equal(201);
    const organization = (await server.store.findOrganization('acme'))!;
    const running = runningArtifacts(
      Array.from({ length: maxReportArtifacts }, (_, i) => ({ digests: { [`app-${i}`]: sha(`${i}`) }, creationTimestamp: 1_763_800_000 })),
    );
    const { result, turns } = await turnsDuring(() =>
      applyEnvironmentReport(server.store, {
        organizationId: organization.id,
        orgName: 'acme',
        envName: 'big',
        type: 'server',
        running,
        tokenId: null,
        now: 1_763_800_100,
      }),
    );
    expect(result).to.deep.include({ outcome: 'recorded', index: 1, changed: true });
    // Ten statements of 500 rows each for the fingerprints' reads (artifacts and attestations side
    // by side), the deployments and the events, with a turn between each two: 27 at least (one before).
    expect(turns, 'turns of the event loop during the report').to.be.at.least(3 * 9);
  });
});
