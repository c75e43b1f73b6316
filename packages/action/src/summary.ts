/** The job summary (Markdown): totals, a table of suites, the failed tests with their messages, a link to the trail. */
import type { AttestConfig } from './inputs.ts';
import type { AttestResult } from './attest-flow.ts';

const escape = (text: string) => text.replace(/[|<>&]/g, (c) => ({ '|': '\\|', '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!).replace(/\r?\n/g, ' ');
const seconds = (s: number) => `${s.toFixed(s < 10 ? 2 : 1)} s`;

/** At most this many suites are listed (the rest are counted). */
const maxRows = 50;

export function summaryMarkdown(config: AttestConfig, result: AttestResult): string {
  const t = result.totals;
  const verdict = result.compliant ? '✅ all tests passed' : `❌ ${t.failed} failed, ${t.errors} errored`;
  const lines = [
    `## Trailproof: ${config.attestationName} ${result.attested ? 'attested' : 'not attested'}`,
    '',
    `${verdict} · ${t.total} tests in ${t.suites} suites · ${t.passed} passed · ${t.skipped} skipped · ${t.flaky} flaky · ${seconds(t.duration)}`,
    '',
    `Trail: [${escape(`${config.org}/${config.flow}/${config.trail}`)}](${result.trailUrl})${result.attachment ? ` · attached ${escape(result.attachment.name)} (${result.attachment.size} bytes)` : ''}`,
    '',
  ];
  if (result.suites.length) {
    lines.push('| Suite | Tests | Passed | Failed | Errors | Skipped | Time |', '|---|---:|---:|---:|---:|---:|---:|');
    for (const s of result.suites.slice(0, maxRows)) {
      const passed = Math.max(0, s.total - s.failures - s.errors - s.skipped);
      lines.push(`| ${escape(s.name)} | ${s.total} | ${passed} | ${s.failures} | ${s.errors} | ${s.skipped} | ${seconds(s.duration)} |`);
    }
    if (result.suites.length > maxRows) lines.push(`| … and ${result.suites.length - maxRows} more suites | | | | | | |`);
    lines.push('');
  }
  if (result.failures.length) {
    lines.push('### Failed tests', '');
    for (const c of result.failures) {
      const name = [c.className, c.name].filter(Boolean).join(' › ');
      lines.push(`- **${escape(name)}** (${c.outcome})${c.message ? `: ${escape(c.message.slice(0, 500))}` : ''}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
