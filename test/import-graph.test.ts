/**
 * The import rules of .dependency-cruiser.cjs hold over every package's sources: no import cycles,
 * no arrow from the store to HTTP or the console nor from the domain to HTTP, migrations importing
 * only migrations and kysely, and operations imported only by the router and the package's faces.
 * And the store loads no module named at run time, an arrow that no import rule would see.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { runProcess } from './support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const depcruise = fileURLToPath(new URL('../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));

describe('import graph', function () {
  this.timeout(120_000);

  it('has no cycles, no arrow from the store to HTTP or the console nor from the domain to HTTP, migrations import no live code, and only the router and faces import operations', async () => {
    const result = await runProcess(process.execPath, [depcruise, 'packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root });
    expect(result.stdout + result.stderr).to.include('no dependency violations found');
    expect(result.status).to.equal(0);
  });

  it('has no import() in the store of a module named by a value, but for the worker threads it starts (store/sqlite/threads.ts)', () => {
    const store = join(root, 'packages/server/src/store');
    const files = (readdirSync(store, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
    expect(files.length).to.be.greaterThan(50);
    const named = files.flatMap((file) =>
      file === join('sqlite', 'threads.ts')
        ? []
        : [...readFileSync(join(store, file), 'utf8').matchAll(/\bimport\(\s*([^'"\s)][^)]*)\)/g)].map((m) => `store/${file}: import(${m[1]})`),
    );
    expect(named).to.deep.equal([]);
  });
});
