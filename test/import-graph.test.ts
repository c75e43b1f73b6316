/**
 * The import rules of .dependency-cruiser.cjs hold over every package's sources: no import cycles,
 * no arrow from the store or the domain to HTTP, migrations importing only migrations
 * and kysely, and operations imported only by the router and the package's faces.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { runProcess } from './support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const depcruise = fileURLToPath(new URL('../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));

describe('import graph', function () {
  this.timeout(120_000);

  it('has no cycles, no arrow from the store or the domain to HTTP, migrations import no live code, and only the router and faces import operations', async () => {
    const result = await runProcess(process.execPath, [depcruise, 'packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root });
    expect(result.stdout + result.stderr).to.include('no dependency violations found');
    expect(result.status).to.equal(0);
  });
});
