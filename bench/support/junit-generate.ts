/**
 * Generated Surefire-style JUnit XML for the reader benchmark (deterministic):
 *
 * - one big `TEST-*.xml`: a `<testsuite>` with its `<properties>` and as many `<testcase>`s as
 *   fit in the requested size. Of every 100 cases: 5 fail (`<failure message=...>` with a ~1.7KB
 *   stack trace), 1 errors, 3 are skipped, 10 pass with ~0.6KB of `<system-out>` (CDATA), 81
 *   simply pass;
 * - many small files of about 2KB each: one `<testsuite>` of 14 cases, every tenth with a failure.
 */
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function stack(i: number, frames: number): string {
  const lines = [`org.opentest4j.AssertionFailedError: expected: <200> but was: <500> (case ${i})`];
  for (let f = 0; f < frames; f++)
    lines.push(`\tat com.acme.service.module${(i + f) % 40}.Component${f % 9}.handle${f}(Component${f % 9}.java:${100 + ((i * 7 + f * 13) % 900)})`);
  return lines.join('\n');
}

const properties = Array.from({ length: 24 }, (_, i) => `    <property name="sys.prop.${i}" value="/opt/build/workspace/value-${i}"/>`).join('\n');

function caseXml(i: number): { xml: string; outcome: 'pass' | 'failure' | 'error' | 'skipped' } {
  const k = i % 100;
  const open = `  <testcase name="shouldHandleRequest${i}WhenInputIsValid" classname="com.acme.service.module${i % 40}.Component${i % 9}Test" time="${((i * 37) % 5000) / 1000}"`;
  if (k < 5) {
    const message = `expected: <200> but was: <500> (case ${i})`;
    return {
      outcome: 'failure',
      xml: `${open}>\n    <failure message="${esc(message)}" type="org.opentest4j.AssertionFailedError">${esc(stack(i, 22))}</failure>\n  </testcase>\n`,
    };
  }
  if (k === 5)
    return {
      outcome: 'error',
      xml: `${open}>\n    <error message="Cannot invoke &quot;Object.toString()&quot; because &quot;value&quot; is null" type="java.lang.NullPointerException">${esc(stack(i, 12))}</error>\n  </testcase>\n`,
    };
  if (k < 9) return { outcome: 'skipped', xml: `${open}>\n    <skipped message="@Disabled: flaky on CI"/>\n  </testcase>\n` };
  if (k < 19) {
    const out = Array.from(
      { length: 6 },
      (_, l) => `2025-11-22 10:${String(l).padStart(2, '0')}:00.123 INFO  [main] c.a.s.Component${i % 9} - step ${l} of request ${i} done in ${l * 3} ms`,
    ).join('\n');
    return { outcome: 'pass', xml: `${open}>\n    <system-out><![CDATA[${out}\n]]></system-out>\n  </testcase>\n` };
  }
  return { outcome: 'pass', xml: `${open}/>\n` };
}

/** Writes a Surefire-style report of about `bytes` bytes; resolves with how many test cases it holds. */
export async function generateBigReport(file: string, bytes: number): Promise<{ bytes: number; cases: number }> {
  // First pass: how many cases fit, and the counts the suite declares.
  const counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  let size = 600 + properties.length;
  while (size < bytes) {
    const c = caseXml(counts.tests);
    size += c.xml.length;
    counts.tests++;
    if (c.outcome === 'failure') counts.failures++;
    if (c.outcome === 'error') counts.errors++;
    if (c.outcome === 'skipped') counts.skipped++;
  }
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve())));
  await write(
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report-3.0.xsd" version="3.0" name="com.acme.service.BigSuiteTest" time="${counts.tests / 10}" tests="${counts.tests}" errors="${counts.errors}" skipped="${counts.skipped}" failures="${counts.failures}">\n  <properties>\n${properties}\n  </properties>\n`,
  );
  let chunk = '';
  for (let i = 0; i < counts.tests; i++) {
    chunk += caseXml(i).xml;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk + '</testsuite>\n');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { bytes: size, cases: counts.tests };
}

/** Writes `count` small reports (about 2KB each) into `dir`; resolves with how many test cases they hold. */
export function generateSmallReports(dir: string, count: number): { bytes: number; cases: number } {
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  for (let f = 0; f < count; f++) {
    const cases = Array.from({ length: 14 }, (_, c) => {
      const i = f * 14 + c;
      const open = `  <testcase name="test${c}ReturnsExpectedValue" classname="com.acme.lib${f % 50}.Unit${f}Test" time="0.00${c}"`;
      return f % 10 === 0 && c === 3
        ? `${open}>\n    <failure message="expected: &lt;true&gt; but was: &lt;false&gt;" type="org.opentest4j.AssertionFailedError">${esc(stack(i, 6))}</failure>\n  </testcase>\n`
        : `${open}/>\n`;
    }).join('');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="com.acme.lib${f % 50}.Unit${f}Test" time="0.036" tests="14" errors="0" skipped="0" failures="${f % 10 === 0 ? 1 : 0}" timestamp="2025-11-22T10:00:00">\n  <properties>\n    <property name="java.version" value="21.0.2"/>\n    <property name="os.name" value="Linux"/>\n  </properties>\n${cases}  <system-out><![CDATA[Unit${f}Test: 14 tests]]></system-out>\n</testsuite>\n`;
    writeFileSync(join(dir, `TEST-com.acme.lib${f % 50}.Unit${f}Test.xml`), xml);
    bytes += xml.length;
  }
  return { bytes, cases: count * 14 };
}
