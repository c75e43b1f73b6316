/**
 * The job summary (Markdown): totals, a table of suites, the failed tests with their messages, a
 * link to the trail. Written whether the step passed or failed: on a failure it leads with the
 * error and shows whatever was known by then.
 */
import { caseTitle } from './annotations.ts';
import type { AttestConfig } from './inputs.ts';
import type { AttestResult } from './attest-flow.ts';

const seconds = (s: number) => `${s.toFixed(s < 10 ? 2 : 1)} s`;

/** At most this many suites are listed (the rest are counted). */
const maxRows = 50;
/** Longest name (suite, test, file) shown; longer ones end in an ellipsis. */
export const maxNameLength = 200;
/** Longest failure message and error shown. */
const maxMessageLength = 500;
const maxErrorLength = 4000;
/** GitHub refuses a step summary over 1 MiB: stay below with room to spare. */
export const maxSummaryBytes = 1000 * 1000;

export interface SummaryInput {
  /** Unknown when an input did not validate. */
  config?: AttestConfig;
  /** What the flow did and read (in part, when it failed). */
  result?: AttestResult;
  /** Why the step failed, if it did. */
  error?: string;
  /** How many of the listed failed tests were annotated, and why no more (the action only). */
  annotated?: { count: number; limit: string };
}

export function summaryMarkdown({ config, result, error, annotated }: SummaryInput): string {
  let shortened = 0;
  /** Escaped for Markdown and HTML, on one line, and at most `max` characters (counted). */
  const escape = (text: string, max = maxNameLength) => {
    const short = text.length > max ? `${text.slice(0, max - 1)}…` : text;
    if (short !== text) shortened++;
    return short.replace(/[|<>&]/g, (c) => ({ '|': '\\|', '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!).replace(/\r?\n/g, ' ');
  };
  const onlyFailures = config?.jobSummary === 'failures';
  const name = config?.attestationName ?? 'JUnit results';
  const lines = [`## Trailproof: ${escape(name)} ${result?.attested ? 'attested' : 'not attested'}`, ''];
  if (error) lines.push(`**Failed:** ${escape(error, maxErrorLength)}`, '');
  if (result?.unattested) lines.push(`**Nothing attested:** ${escape(result.unattested, maxErrorLength)}.`, '');
  if (result?.totals) {
    const t = result.totals;
    const verdict = result.compliant ? '✅ all tests passed' : `❌ ${t.failed} failed, ${t.errors} errored`;
    lines.push(
      `${verdict} · ${t.total} tests in ${t.suites} suites · ${t.passed} passed · ${t.skipped} skipped · ${t.flaky} flaky · ${seconds(t.duration)}`,
      '',
    );
  } else if (result?.files.length) {
    lines.push(`Read ${result.files.length} JUnit file(s) before the failure; no totals.`, '');
  }
  if (result?.reruns) {
    const r = result.reruns;
    lines.push(
      `Reruns merged: ${r.repeatedCases} test(s) ran more than once (${r.repeats} reruns); each counts once, by its last run, and one that failed and then passed counts as flaky.`,
      '',
    );
  }
  if (config && result && !result.unattested) {
    const link = `[${escape(`${config.org}/${config.flow}/${config.trail}`, 3 * maxNameLength)}](${result.trailUrl})`;
    const attached = result.attachment ? ` · attached ${escape(result.attachment.name)} (${result.attachment.size} bytes)` : '';
    lines.push(result.begun ? `Trail: ${link}${attached}` : `Trail ${link} was not begun.`, '');
  }
  const suites = onlyFailures ? (result?.suites ?? []).filter((s) => s.failures > 0 || s.errors > 0) : (result?.suites ?? []);
  if (suites.length) {
    lines.push(
      onlyFailures ? '### Suites with failures' : '### Suites',
      '',
      '| Suite | Tests | Passed | Failed | Errors | Skipped | Time |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const s of suites.slice(0, maxRows)) {
      const passed = Math.max(0, s.total - s.failures - s.errors - s.skipped);
      lines.push(`| ${escape(s.name)} | ${s.total} | ${passed} | ${s.failures} | ${s.errors} | ${s.skipped} | ${seconds(s.duration)} |`);
    }
    if (suites.length > maxRows) lines.push(`| … and ${suites.length - maxRows} more suites, not listed | | | | | | |`);
    lines.push('');
  }
  if (result?.failures.length) {
    lines.push('### Failed tests', '');
    for (const c of result.failures) {
      lines.push(`- **${escape(caseTitle(c))}** (${c.outcome})${c.message ? `: ${escape(c.message, maxMessageLength)}` : ''}`);
    }
    if (result.moreFailures > 0) {
      lines.push('', `… and ${result.moreFailures} more failed or errored tests, not listed (the first ${result.failures.length} are).`);
    }
    if (annotated && annotated.count < result.failures.length + result.moreFailures) {
      const left = result.failures.slice(annotated.count);
      const named = left
        .slice(0, 5)
        .map((c) => `**${escape(caseTitle(c))}**`)
        .join(', ');
      const more = result.failures.length + result.moreFailures - annotated.count - Math.min(5, left.length);
      lines.push(
        '',
        annotated.count === 0
          ? `Not annotated: ${annotated.limit}.`
          : `Annotated the first ${annotated.count}; not annotated (${annotated.limit}): ${named}${more > 0 ? ` and ${more} more` : ''}.`,
      );
    }
    lines.push('');
  }
  if (shortened > 0) lines.push(`_${shortened} name(s) or message(s) longer than shown were shortened (…)._`, '');
  return capped(lines);
}

/** The lines joined, within `maxSummaryBytes`: lines from the end are dropped, and the summary says so. */
function capped(lines: string[]): string {
  let bytes = 0;
  const kept: string[] = [];
  for (const [i, line] of lines.entries()) {
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > maxSummaryBytes - 200) {
      kept.push('', `_The summary stops here: ${lines.length - i} more line(s) would pass GitHub's 1 MiB limit._`, '');
      break;
    }
    kept.push(line);
  }
  return kept.join('\n');
}
