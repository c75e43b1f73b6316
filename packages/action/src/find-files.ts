/**
 * Finds the JUnit files: the `junit-paths` patterns, relative to the workspace, through
 * @actions/glob. A pattern naming an existing directory means the XML files below it.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import * as glob from '@actions/glob';

/** Lines of `junit-paths` that are patterns: not blank, not a `#` comment. */
export function patternLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith('#'));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The files matched by `patterns` (already without comments and blank lines), absolute, sorted,
 * without duplicates. `!pattern` excludes; a directory excluded this way excludes all below it.
 */
export async function findJunitFiles(patterns: readonly string[], workspace: string): Promise<string[]> {
  const absolute = patterns.map((p) => {
    const exclude = p.startsWith('!');
    const path = resolve(workspace, exclude ? p.slice(1).trim() : p);
    if (!isDirectory(path)) return exclude ? `!${path}` : path;
    return exclude ? `!${path}/**` : `${path}/**/*.xml`;
  });
  const globber = await glob.create(absolute.join('\n'), { matchDirectories: false, implicitDescendants: false });
  return [...new Set(await globber.glob())].sort();
}
