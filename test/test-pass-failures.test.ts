/**
 * A pass whose files run two at a time fails there, then runs the files that must run alone: its
 * failures are printed again at its end (scripts/test-pass.sh), and scripts/failures.sh, which CI
 * prints last, shows that repeat rather than the alone part's output that followed the first one.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { runProcess } from './support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** scripts/failures.sh's output for `log`. */
async function failuresOf(log: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-failures-'));
  try {
    writeFileSync(join(dir, 'log'), log);
    return (await runProcess('bash', ['-c', `bash '${join(root, 'scripts/failures.sh')}' < '${join(dir, 'log')}'`])).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a failing pass’s failures, printed where a log’s tail shows them', function () {
  this.timeout(120_000);
  let dir = '';
  before(() => {
    // A checkout of its own: test-pass.sh, a test-files.sh naming two files, mocha from the repository.
    dir = mkdtempSync(join(tmpdir(), 'trailproof-test-pass-'));
    mkdirSync(join(dir, 'scripts'));
    cpSync(join(root, 'scripts/test-pass.sh'), join(dir, 'scripts/test-pass.sh'));
    writeFileSync(join(dir, 'scripts/test-files.sh'), 'case "$2" in together) echo first.test.mjs ;; alone) echo alone.test.mjs ;; esac\n');
    writeFileSync(join(dir, 'package.json'), '{ "name": "pass-fixture", "private": true }\n');
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'first.test.mjs'),
      "import assert from 'node:assert';\ndescribe('first part', () => { it('fails on purpose', () => assert.equal(1, 2)); it('passes', () => {}); });\n",
    );
    writeFileSync(join(dir, 'alone.test.mjs'), "describe('alone part', () => { for (let i = 0; i < 80; i++) it('passes ' + i, () => {}); });\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('repeats the first part’s failure after the alone part, with the first failing exit status, and failures.sh shows that repeat', async () => {
    const run = await runProcess('bash', [join(dir, 'scripts/test-pass.sh'), 'sqlite'], { cwd: dir });
    expect(run.status, run.stderr).to.equal(1);
    const output = run.stdout;
    const repeat = output.lastIndexOf('test-pass: what failed in the files run together');
    expect(repeat, output).to.be.above(output.indexOf('passes 79'));
    expect(output.slice(repeat)).to.contain('1 failing').and.contain('fails on purpose').and.contain('1 == 2');
    expect(output).not.to.contain('what failed in the files run alone');

    // As CI's log has it: the pass's lines prefixed, then the pass's time.
    const log = `${output
      .trimEnd()
      .split('\n')
      .map((line) => `[postgres] ${line}`)
      .join('\n')}\n[postgres] pass took 3 s (exit status 1)\nci: done\n`;
    const shown = await failuresOf(log);
    expect(shown.split('\n')[0]).to.equal("[postgres] test-pass: what failed in the files run together (mocha's exit status 1), again:");
    expect(shown).to.contain('fails on purpose').and.contain('[postgres] pass took 3 s').and.not.contain('passes 79');
  });

  it('failures.sh shows mocha’s own section where no pass repeated it, and the log’s tail where nothing says what failed', async () => {
    const old = '[sqlite]   3 passing\n[sqlite]   1 failing\n[sqlite]   1) a test\n[sqlite] pass took 2 s (exit status 1)\n[sqlite] later\n';
    expect(await failuresOf(old)).to.equal('[sqlite]   1 failing\n[sqlite]   1) a test\n[sqlite] pass took 2 s (exit status 1)\n');
    expect(await failuresOf('lint: 2 errors\n')).to.equal('lint: 2 errors\n');
  });
});
