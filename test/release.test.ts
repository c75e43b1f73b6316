/**
 * What a release needs and CI cannot run here: the GitHub workflows are valid by the workflow
 * schema (checked with action-validator, which compiles SchemaStore's github-workflow schema),
 * every package carries the one 0.x version the release tag names, and CHANGELOG.md has notes
 * for it (the release workflow publishes them with .ci/release-notes).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateWorkflow } from '@action-validator/core';
import { expect } from 'chai';
import { runProcess } from './support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(root + path, 'utf8');
const workflows = readdirSync(root + '.github/workflows').map((name) => `.github/workflows/${name}`);
const manifests = [
  'package.json',
  ...['packages', 'examples'].flatMap((dir) => readdirSync(root + dir).map((name) => `${dir}/${name}/package.json`)).filter((path) => existsSync(root + path)),
];
const packages = manifests.map((path) => JSON.parse(read(path)) as { name: string; version: string });

describe('release: workflows, versions and notes', () => {
  it('has a CI and a release workflow, each valid by the workflow schema', () => {
    expect(workflows).to.include.members(['.github/workflows/ci.yml', '.github/workflows/release.yml']);
    for (const path of workflows) expect(validateWorkflow(read(path)).errors, path).to.deep.equal([]);
  });

  it('would refuse a workflow that breaks the schema (the check is not vacuous)', () => {
    const broken = read('.github/workflows/ci.yml').replace('runs-on: ubuntu-latest', 'runs_on: ubuntu-latest');
    expect(validateWorkflow(broken).errors).to.not.be.empty;
  });

  it('CI runs .ci/run on push and pull request; a vX.Y.Z tag runs it before releasing and moving the major tag', () => {
    const ci = read('.github/workflows/ci.yml');
    expect(ci)
      .to.match(/^on:\n( {2}.*\n)* {2}push:/m)
      .and.match(/^ {2}pull_request:/m)
      .and.include('run: bash .ci/run');
    const release = read('.github/workflows/release.yml');
    expect(release).to.include("tags: ['v[0-9]+.[0-9]+.[0-9]+']").and.include('uses: ./.github/workflows/ci.yml').and.include('needs: ci');
    expect(release).to.include('gh release create').and.include('git push --force origin "refs/tags/$major"');
  });

  it('every package (root, packages, examples) has the same 0.x version, and CHANGELOG.md has its notes', async () => {
    const versions = new Set(packages.map((p) => p.version));
    expect(versions.size, JSON.stringify(packages.map((p) => [p.name, p.version]))).to.equal(1);
    const [version] = versions;
    expect(version).to.match(/^0\.\d+\.\d+$/);
    const notes = await runProcess('bash', [root + '.ci/release-notes', version!]);
    expect(notes.status, notes.stderr).to.equal(0);
    expect(notes.stdout).to.include('### Added');
    const missing = await runProcess('bash', [root + '.ci/release-notes', '0.0.0-none']);
    expect(missing.status).to.equal(1);
  });
});
