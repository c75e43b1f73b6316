/**
 * JUnit XML reader: streams a report (any size, bounded memory) and returns the per-suite
 * results the API's `junit_results` expects, the counts every `<testsuite>` declares and the
 * first failed test cases; every test case goes to the `onCase` option, if given. The rules are
 * documented in packages/junit/README.md, "Rules".
 *
 * @example
 * const report = await readJunitFile('build/test-results/TEST-foo.xml');
 * const totals = summarize([report]);
 * // Every case, for the consumers that need them all:
 * const cases: JunitCase[] = [];
 * await readJunitFile('TEST-foo.xml', { onCase: (c) => cases.push(c) });
 */
import { readBytes, readBytesWhole, readFile, readText, type JunitReadOptions } from './internal-sax.ts';
import type { JunitFileReport, JunitTotals } from './types.ts';

export * from './types.ts';
export type { JunitReadOptions } from './internal-sax.ts';

/**
 * Reads a JUnit XML file: read whole in one synchronous read if it is a regular file of at most
 * 1 MiB (cheaper than the thread-pool round trips of a stream), else streamed (never whole in memory).
 * @param path File to read; `report.file` is this path as given.
 * @throws JunitReadError kind 'corrupt' (not well-formed, DOCTYPE/entity declarations, unsupported
 *   encoding; `line` is 1-based) or 'not-junit' (root is neither `<testsuites>` nor `<testsuite>`).
 *   File-system errors (ENOENT, EACCES, ...) and errors thrown by `onCase` are thrown as they are.
 */
export function readJunitFile(path: string, options?: JunitReadOptions): Promise<JunitFileReport> {
  return readFile(path, options);
}

/**
 * Reads a JUnit XML document from any byte stream (a file stream, an HTTP upload, a generator).
 * The encoding is sniffed from the first bytes (BOM, XML declaration).
 * @param file Name used in error messages and as the suite name of last resort.
 * @throws JunitReadError as `readJunitFile`.
 */
export function readJunitStream(stream: AsyncIterable<Buffer | Uint8Array>, file: string, options?: JunitReadOptions): Promise<JunitFileReport> {
  return readBytes(stream, file, options);
}

/**
 * Reads a JUnit XML document whose bytes are all at hand (an attachment read from a database):
 * the encoding sniffed as `readJunitStream` does, the text decoded once and read as
 * `readJunitFile` reads a small file. Meant for documents of a few MiB at most: they are decoded whole.
 * @throws JunitReadError as `readJunitFile` (the promise rejects).
 */
export async function readJunitBytes(bytes: Uint8Array, file: string, options?: JunitReadOptions): Promise<JunitFileReport> {
  return readBytesWhole(bytes, file, options);
}

/**
 * Reads a JUnit XML document that is already text (its XML declaration's `encoding` is ignored).
 * @throws JunitReadError as `readJunitFile` (the promise rejects).
 */
export async function readJunitString(xml: string, file = '<string>', options?: JunitReadOptions): Promise<JunitFileReport> {
  return readText(xml, file, options);
}

/** Totals over the `suites` of the given reports. */
export function summarize(reports: readonly JunitFileReport[]): JunitTotals {
  const totals: JunitTotals = { suites: 0, total: 0, passed: 0, failed: 0, errors: 0, skipped: 0, flaky: 0, duration: 0 };
  for (const report of reports) {
    for (const s of report.suites) {
      totals.suites++;
      totals.total += s.total;
      totals.passed += Math.max(0, s.total - s.failures - s.errors - s.skipped);
      totals.failed += s.failures;
      totals.errors += s.errors;
      totals.skipped += s.skipped;
      totals.flaky += s.flaky;
      totals.duration += s.duration;
    }
  }
  return totals;
}
