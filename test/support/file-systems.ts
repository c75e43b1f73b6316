/**
 * File systems that a test makes for itself: a small one to fill up (a tmpfs on a fresh folder),
 * a folder made read-only. Mounting needs root (and a kernel that lets this process mount);
 * elsewhere the tests that need it are skipped, each saying why in its title.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Unmounts it and removes the folder. */
  remove(): void;
}

/** Mounts a tmpfs of `size` (as `16m`); a string saying why not where that cannot be done here. */
export function mountSmallDisk(size: string): SmallDisk | string {
  if (process.platform !== 'linux') return 'a tmpfs mount needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a small file system needs root';
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `mount -t tmpfs was refused: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
  return {
    dir,
    remove() {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Makes `dir` and the files in it read-only, for root too: a read-only bind mount of it over
 * itself (for root, who may write whatever the modes say), or else modes 0444 and 0555. Returns
 * what undoes it, or a string saying why it cannot be done here.
 */
export function makeReadOnly(dir: string): (() => void) | string {
  for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o444);
  chmodSync(dir, 0o555);
  const modes = () => chmodSync(dir, 0o755);
  if (process.getuid?.() !== 0) return modes;
  try {
    execFileSync('mount', ['--bind', dir, dir], { stdio: 'pipe' });
  } catch (error) {
    modes();
    return `root writes whatever the modes say, and mount --bind was refused: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
  try {
    execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'pipe' });
  } catch (error) {
    execFileSync('umount', [dir]);
    modes();
    return `a read-only remount was refused: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
  return () => {
    execFileSync('umount', [dir]);
    modes();
  };
}

/**
 * Skips, naming `reason` in the title of what is skipped: the tests of the suite when called in
 * its `before` hook, else the test that calls it.
 */
export function skipSaying(context: Mocha.Context, reason: string): never {
  const current = context.test!;
  for (const test of (current as Mocha.Hook).type === 'hook' ? current.parent!.tests : [current]) test.title += ` (skipped: ${reason})`;
  context.skip();
}

/** Appends to `file` until its file system has not one byte left (ENOSPC). */
export function fillUp(file: string): void {
  const fd = openSync(file, 'a');
  try {
    const chunk = Buffer.alloc(64 * 1024, 1);
    for (const size of [chunk.length, 1]) {
      for (;;) {
        try {
          writeSync(fd, chunk, 0, size); // a part written: the next write finds the end
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
