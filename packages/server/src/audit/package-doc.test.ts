import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { fixturePackage, rewritePackage } from './package-fixture.ts';

// docs/verification.md shows how to check a package with tar, sha256sum and the page's Python
// script; this runs those very lines on packages our code wrote, sound and tampered with.
const page = readFileSync(new URL('../../../../docs/verification.md', import.meta.url), 'utf8');
const python = /```python\n([\s\S]*?)```/.exec(page)?.[1];
const byHand = /### Checking a package by hand\n\n```\n([\s\S]*?)```/.exec(page)?.[1];
const available = (command: string, ...args: string[]) => spawnSync(command, args).status === 0;

describe('audit package: the check by hand of docs/verification.md', function () {
  this.timeout(120_000);
  let folder = '';

  before(function () {
    if (!available('python3', '--version') || !available('openssl', 'version') || !available('sha256sum', '--version')) this.skip();
    folder = mkdtempSync(join(tmpdir(), 'trailproof-package-doc-'));
  });
  after(() => folder && rmSync(folder, { recursive: true, force: true }));

  /** Runs the page's lines in a folder holding `bytes` as acme.tar.gz and verify.py. */
  const check = (name: string, bytes: Buffer) => {
    const dir = mkdtempSync(join(folder, `${name}-`));
    writeFileSync(join(dir, 'acme.tar.gz'), bytes);
    writeFileSync(join(dir, 'verify.py'), python ?? '');
    const result = spawnSync('bash', ['-c', byHand ?? 'exit 9'], { cwd: dir, encoding: 'utf8' });
    return result.stdout + result.stderr;
  };

  it('passes on a sound package; names the changed attachment, row and leaf', async () => {
    expect(python, 'the python block').to.be.a('string');
    expect(byHand, 'the shell block').to.be.a('string');
    const pkg = await fixturePackage();
    const sound = check('sound', pkg.bytes);
    expect(sound).to.not.contain('FAILED');
    expect([sound.match(/: OK\n/g)?.length, sound.match(/^OK: leaf \d+ is in/gm)?.length]).to.deep.equal([2, 9]);

    let attachment = '';
    const flipped = await rewritePackage(pkg.bytes, (name, content) => {
      if (!name.startsWith('attachments/') || attachment) return content;
      attachment = name.slice('attachments/'.length);
      return Buffer.from(content.map((b, i) => (i === 0 ? b ^ 1 : b)));
    });
    expect(check('flipped', flipped)).to.contain(`${attachment}: FAILED`);

    const row = await rewritePackage(pkg.bytes, (name, content) =>
      name === 'records/3/row.json' ? Buffer.from(content.toString().replace('"tests"', '"lint"')) : content,
    );
    expect(check('row', row)).to.contain('FAILED: records/3//row.json');

    const leaf = await rewritePackage(pkg.bytes, (name, content) =>
      name === 'records/1/leaf' ? Buffer.from(content.toString().replace('"tests"', '"lint"')) : content,
    );
    expect(check('leaf', leaf)).to.contain("FAILED: the proof does not lead to the checkpoint's root");
  });
});
