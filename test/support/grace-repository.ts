/**
 * A real git repository of two commits by Grace Hopper and a depth-1 clone of it, as
 * actions/checkout makes: what the action reads its commit from, in its own tests and end to end.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository, its clone and the SHAs of its two commits. */
export interface GraceRepository {
  /** The repository with both commits. */
  origin: string;
  /** Its depth-1 clone: the head commit without its parent. */
  clone: string;
  /** The first commit, "VAT rates" (2026-11-18T10:00:00Z). */
  parent: string;
  /** The head commit, "Add VAT reverse charge\n\nFor B2B invoices." (2026-11-21T16:30:00Z), which adds to vat.ts. */
  head: string;
}

/** Makes the repository at `root/origin` and clones it at depth 1 into `clone`. */
export function graceRepository(root: string, clone: string): GraceRepository {
  const origin = join(root, 'origin');
  const identity = {
    GIT_AUTHOR_NAME: 'Grace Hopper',
    GIT_AUTHOR_EMAIL: 'grace@acme.example',
    GIT_COMMITTER_NAME: 'Grace Hopper',
    GIT_COMMITTER_EMAIL: 'grace@acme.example',
  };
  const git = (cwd: string, args: string[], date = '2026-11-21T16:30:00Z') =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...identity, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    }).trim();
  git(root, ['init', '-q', origin]);
  writeFileSync(join(origin, 'vat.ts'), 'export const rate = 0.19;\n');
  git(origin, ['add', '.']);
  git(origin, ['commit', '-q', '-m', 'VAT rates'], '2026-11-18T10:00:00Z');
  const parent = git(origin, ['rev-parse', 'HEAD']);
  writeFileSync(join(origin, 'vat.ts'), 'export const rate = 0.19;\nexport const reverseCharge = true;\n');
  git(origin, ['commit', '-q', '-a', '-m', 'Add VAT reverse charge\n\nFor B2B invoices.']);
  git(root, ['clone', '-q', '--depth', '1', `file://${origin}`, clone]);
  return { origin, clone, parent, head: git(clone, ['rev-parse', 'HEAD']) };
}
