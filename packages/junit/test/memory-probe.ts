/**
 * Run by src/reader.test.ts in a fresh process (`node --import tsx --expose-gc memory-probe.ts`), so
 * that the RSS it measures is the reader's alone and not what earlier tests left behind: reads a
 * generated Surefire report of 250,000 cases (6% failing with stack traces) from a stream with the
 * default options (or, with `collect`, keeping every case) and prints the RSS before and at its peak, and what the report kept, as JSON.
 */
import { readJunitStream } from '@trailproof/junit';

const blocks = Number(process.argv[3] ?? 2500);
const trace = `org.opentest4j.AssertionFailedError: expected: &lt;200&gt; but was: &lt;500&gt;\n${'\tat com.acme.service.Component.handle(Component.java:123)\n'.repeat(25)}`;
// 100 cases of a Surefire report: 5 failures, 1 error (each with its stack trace), 94 passes.
const block = (n: number) =>
  Buffer.from(
    Array.from({ length: 100 }, (_, k) => {
      const open = `<testcase name="shouldHandleRequest${n * 100 + k}" classname="com.acme.module${k % 40}.Component${k % 9}Test" time="0.0${k}"`;
      if (k < 5) return `${open}><failure message="expected 200 (case ${n * 100 + k})" type="AssertionFailedError">${trace}</failure></testcase>\n`;
      if (k === 5) return `${open}><error message="NullPointerException" type="java.lang.NullPointerException">${trace}</error></testcase>\n`;
      return `${open}/>\n`;
    }).join(''),
  );

(globalThis as { gc?: () => void }).gc?.();
const baseline = process.memoryUsage().rss;
let peak = baseline;
let produced = 0;
async function* generate(): AsyncGenerator<Buffer> {
  yield Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="com.acme.BigSuiteTest">\n');
  for (let n = 0; n < blocks; n++) {
    if (n % 100 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    const b = block(n);
    produced += b.length;
    yield b;
  }
  yield Buffer.from('</testsuite>\n');
}
// With `collect`, every case is kept through onCase: the memory a reader that keeps cases needs.
const kept: unknown[] = [];
const report = await readJunitStream(generate(), 'TEST-big.xml', process.argv[2] === 'collect' ? { onCase: (c) => kept.push(c) } : {});
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(
  JSON.stringify({
    baseline,
    peak,
    produced,
    suites: report.suites,
    failures: report.failures.length,
    firstFailure: report.failures[0],
    moreFailures: report.moreFailures,
    kept: kept.length,
  }),
);
