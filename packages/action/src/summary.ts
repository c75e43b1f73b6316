/**
 * The job summary (Markdown): totals, a table of suites, the failed tests with their messages, a
 * link to the trail. Written whether the step passed or failed: on a failure it leads with the
 * error and shows whatever was known by then.
 */
import type { AttestConfig } from './inputs.ts';
import type { AttestResult } from './attest-flow.ts';

const escape = (text: string) => text.replace(/[|<>&]/g, (c) => ({ '|': '\\|', '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!).replace(/\r?\n/g, ' ');
const seconds = (s: number) => `${s.toFixed(s < 10 ? 2 : 1)} s`;

/** At most this many suites are listed (the rest are counted). */
const maxRows = 50;

export interface SummaryInput {
  /** Unknown when an input did not validate. */
  config?: AttestConfig;
  /** What the flow did and read (in part, when it failed). */
  result?: AttestResult;
  /** Why the step failed, if it did. */
  error?: string;
}

export function summaryMarkdown({ config, result, error }: SummaryInput): string {
  const name = config?.attestationName ?? 'JUnit results';
  const lines = [`## Trailproof: ${escape(name)} ${result?.attested ? 'attested' : 'not attested'}`, ''];
  if (error) lines.push(`**Failed:** ${escape(error)}`, '');
  if (result?.totals) {
    const t = result.totals;
    const verdict = result.compliant ? '✅ all tests passed' : `❌ ${t.failed} failed, ${t.errors} errored`;
    lines.push(`${verdict} · ${t.total} tests in ${t.suites} suites · ${t.passed} passed · ${t.skipped} skipped · ${t.flaky} flaky · ${seconds(t.duration)}`, '');
  } else if (result?.files.length) {
    lines.push(`Read ${result.files.length} JUnit file(s) before the failure; no totals.`, '');
  }
  if (config && result) {
    const link = `[${escape(`${config.org}/${config.flow}/${config.trail}`)}](${result.trailUrl})`;
    const attached = result.attachment ? ` · attached ${escape(result.attachment.name)} (${result.attachment.size} bytes)` : '';
    lines.push(result.begun ? `Trail: ${link}${attached}` : `Trail ${link} was not begun.`, '');
  }
  if (result?.suites.length) {
    lines.push('| Suite | Tests | Passed | Failed | Errors | Skipped | Time |', '|---|---:|---:|---:|---:|---:|---:|');
    for (const s of result.suites.slice(0, maxRows)) {
      const passed = Math.max(0, s.total - s.failures - s.errors - s.skipped);
      lines.push(`| ${escape(s.name)} | ${s.total} | ${passed} | ${s.failures} | ${s.errors} | ${s.skipped} | ${seconds(s.duration)} |`);
    }
    if (result.suites.length > maxRows) lines.push(`| … and ${result.suites.length - maxRows} more suites | | | | | | |`);
    lines.push('');
  }
  if (result?.failures.length) {
    lines.push('### Failed tests', '');
    for (const c of result.failures) {
      const test = [c.className, c.name].filter(Boolean).join(' › ');
      lines.push(`- **${escape(test)}** (${c.outcome})${c.message ? `: ${escape(c.message.slice(0, 500))}` : ''}`);
    }
    if (result.moreFailures > 0) {
      lines.push('', `… and ${result.moreFailures} more failed or errored tests, not listed (the first ${result.failures.length} are).`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
