// @database
/**
 * `serve --help` names every environment variable the server reads: each one read anywhere in
 * the server's sources (outside tests) is listed there, or is one of the few named below that
 * `serve` does not read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { serve } from './serve.ts';

const sources = fileURLToPath(new URL('..', import.meta.url));

/** Read by other code than `serve`, each for its reason. */
const notServe = new Map([
  ['TRAILPROOF_API_TOKEN', 'the token of the client commands export and verify-checkpoint'],
  ['TRAILPROOF_TEST_DATABASE', "the tests' database (testing.ts)"],
  ['TRAILPROOF_BENCH_WITHOUT_LOG', 'a benchmark switch'],
]);

/** Every `process.env.NAME`, `env.NAME`, `process.env['NAME']` and setting helper's `'NAME'` in `text`. */
function variablesRead(text: string): string[] {
  const reads = /\b(?:process\.env|env)(?:\.([A-Z][A-Z0-9_]*)|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])|\b(?:number|size|duration)Setting\(\s*'([A-Z][A-Z0-9_]*)'/g;
  return [...text.matchAll(reads)].map((match) => (match[1] ?? match[2] ?? match[3])!);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

async function serveHelp(): Promise<string> {
  let help = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => ((help += chunk), true)) as typeof process.stdout.write;
  try {
    await serve.run(['--help']);
  } finally {
    process.stdout.write = write;
  }
  return help;
}

describe('serve --help', () => {
  it('names every environment variable the server reads', async () => {
    const help = await serveHelp();
    const environment = help.slice(help.indexOf('Environment:'));
    const named = new Set([...environment.matchAll(/^ {2}([A-Z][A-Z0-9_]*)\s/gm)].map((match) => match[1]!));
    const read = new Map<string, string>();
    for (const file of sourceFiles(sources)) for (const name of variablesRead(readFileSync(file, 'utf8'))) read.set(name, relative(sources, file));
    expect(read.size, 'variables found in the sources').to.be.above(10);
    const missing = [...read].filter(([name]) => !named.has(name) && !notServe.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(missing, 'read but not in serve --help').to.deep.equal([]);
  });
});
