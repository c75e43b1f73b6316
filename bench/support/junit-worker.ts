/**
 * One JUnit reader on one input, in a process of its own (bundled by junit.ts and run with plain
 * `node`, as the action runs), so that peak RSS belongs to that reader alone:
 *
 *   node junit-worker.mjs trailproof|fast-xml-parser|xml2js|none FILE_OR_DIRECTORY
 *
 * `none` loads nothing and reads nothing: the RSS floor of the process. Prints one JSON line:
 * { ms, maxRssMB, files, cases } (wall time of reading and parsing every input; peak RSS from
 * process.resourceUsage() at the end; test cases found, to check that each reader did the work).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parseStringPromise } from 'xml2js';
import { readJunitFile } from '@trailproof/junit';

const [reader, input] = process.argv.slice(2) as [string, string];
const files = statSync(input).isDirectory()
  ? readdirSync(input)
      .sort()
      .map((f) => join(input, f))
  : [input];

/** Test cases in a parsed tree: every `testcase` key's entries (fast-xml-parser and xml2js alike). */
function countCases(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + countCases(x), 0);
  if (node === null || typeof node !== 'object') return 0;
  let n = 0;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'testcase') n += Array.isArray(value) ? value.length : 1;
    else if (key === 'testsuite' || key === 'testsuites') n += countCases(value);
  }
  return n;
}

const parsers: Record<string, (file: string) => Promise<{ cases: number; keep: unknown }>> = {
  async trailproof(file) {
    const report = await readJunitFile(file);
    return { cases: report.suites.reduce((n, s) => n + s.total, 0), keep: report };
  },
  async 'fast-xml-parser'(file) {
    // As the popular JUnit actions do: the whole file as a string, then one tree.
    const tree: unknown = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(file, 'utf8'));
    return { cases: -1, keep: tree };
  },
  async xml2js(file) {
    const tree: unknown = await parseStringPromise(readFileSync(file, 'utf8'));
    return { cases: -1, keep: tree };
  },
  async none() {
    return { cases: 0, keep: null };
  },
};

const parse = parsers[reader];
if (!parse) throw new Error(`unknown reader ${reader}`);
const started = process.hrtime.bigint();
const results: Array<{ cases: number; keep: unknown }> = [];
// Small files: each result is kept until the end (as an action summarising them all would).
for (const file of reader === 'none' ? [] : files) results.push(await parse(file));
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const cases = results.reduce((n, r) => n + (r.cases >= 0 ? r.cases : countCases(r.keep)), 0);
process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, files: files.length, cases }) + '\n');
