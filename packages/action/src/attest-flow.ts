/**
 * The whole job, for the Action and the CLI alike: find the JUnit files, read them, begin the
 * trail, attest the results with the files attached. What it reports goes through a reporter,
 * so GitHub's annotations and a terminal both work.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as glob from '@actions/glob';
import { buildAttachment, maxAttachmentBytes } from './attachment.ts';
import { createClient } from './client.ts';
import type { RunContext } from './git-context.ts';
import type { AttestConfig } from './inputs.ts';
import { JunitReadError, readJunitFile, summarize, type JunitCase, type JunitFileReport, type JunitSuiteResult, type JunitTotals } from './junit/index.ts';

export interface Reporter {
  info(message: string): void;
  warning(message: string): void;
}

export interface AttestResult {
  /** The trail's address in the API. */
  trailUrl: string;
  files: string[];
  totals: JunitTotals;
  suites: JunitSuiteResult[];
  /** Failed and errored cases (with messages), at most 100. */
  failures: JunitCase[];
  /** No failures and no errors. */
  compliant: boolean;
  /** What was attached, if anything. */
  attachment: { name: string; size: number } | null;
  /** False when nothing was attested (no files or no tests, and require-tests off). */
  attested: boolean;
}

/** Largest number of suites in one attestation (the server's limit). */
const maxSuites = 10_000;

export async function attestJunitResults(config: AttestConfig, run: RunContext, reporter: Reporter): Promise<AttestResult> {
  const trailUrl = `${config.serverUrl}/api/v2/trails/${[config.org, config.flow, config.trail].map(encodeURIComponent).join('/')}`;
  const empty: AttestResult = {
    trailUrl, files: [], totals: summarize([]), suites: [], failures: [], compliant: true, attachment: null, attested: false,
  };

  const client = createClient({ serverUrl: config.serverUrl, apiToken: config.apiToken, onRetry: (m) => reporter.warning(m) });
  const common = {
    ...(run.commit ? { git_commit_info: run.commit } : {}),
    ...(run.repo ? { repo_info: run.repo } : {}),
    ...(run.originUrl ? { origin_url: run.originUrl } : {}),
  };
  const beginTrail = async () => {
    const form = new FormData();
    form.append('data_json', JSON.stringify({ name: config.trail, ...common, ...(config.description ? { description: config.description } : {}) }));
    if (config.templateFile) form.append('template_file', new Blob([await readFile(resolve(run.workspace, config.templateFile))]), 'template.yml');
    const begun = await client.request('PUT', `/trails/${encodeURIComponent(config.org)}/${encodeURIComponent(config.flow)}`, form);
    reporter.info(begun.status === 201 ? `Began trail ${config.trail}` : `Trail ${config.trail} exists already; updated it`);
  };

  const globber = await glob.create(config.junitPaths.map((p) => (p.startsWith('!') ? `!${resolve(run.workspace, p.slice(1))}` : resolve(run.workspace, p))).join('\n'), {
    matchDirectories: false, implicitDescendants: false,
  });
  const files = [...new Set(await globber.glob())].sort();
  if (!files.length) {
    const message = `No JUnit files matched ${config.junitPaths.join(', ')} under ${run.workspace}`;
    if (config.requireTests) throw new Error(message);
    reporter.warning(message);
    // Nothing to attest, but the run (and its template) is still recorded on the trail.
    await beginTrail();
    return empty;
  }

  const reports: JunitFileReport[] = [];
  const read: string[] = [];
  for (const file of files) {
    try {
      reports.push(await readJunitFile(file));
      read.push(file);
    } catch (error) {
      // A loose glob catches other XML (a failsafe-summary.xml): skip it; corrupt XML is an error.
      if (error instanceof JunitReadError && error.kind === 'not-junit') reporter.warning(`Skipped ${file}: not a JUnit report`);
      else throw error;
    }
  }
  const totals = summarize(reports);
  reporter.info(`Read ${read.length} JUnit file(s): ${totals.total} tests, ${totals.failed} failed, ${totals.errors} errors, ${totals.skipped} skipped, ${totals.flaky} flaky`);
  if (totals.total === 0) {
    const message = `No test found in ${read.length} JUnit file(s)`;
    if (config.requireTests) throw new Error(message);
    reporter.warning(message);
    await beginTrail();
    return { ...empty, files: read };
  }

  await beginTrail();

  const suites = reports.flatMap((r) => r.suites);
  const form = new FormData();
  form.append('data_json', JSON.stringify({
    attestation_name: config.attestationName,
    junit_results: junitResults(suites),
    ...common,
    ...(config.description ? { description: config.description } : {}),
    ...(config.artifactFingerprint ? { artifact_fingerprint: config.artifactFingerprint } : {}),
  }));
  let attachment: AttestResult['attachment'] = null;
  if (config.uploadResults) {
    const built = await buildAttachment(read, run.workspace);
    if (built && built.bytes.byteLength > maxAttachmentBytes) {
      reporter.warning(`The JUnit files come to ${built.bytes.byteLength} bytes, over the 10MB attachment limit: attesting without them`);
    } else if (built) {
      form.append('attachment_file', new Blob([built.bytes]), built.name);
      attachment = { name: built.name, size: built.bytes.byteLength };
    }
  }
  await client.request('POST', `/attestations/${[config.org, config.flow].map(encodeURIComponent).join('/')}/trail/${encodeURIComponent(config.trail)}/junit`, form);
  reporter.info(`Attested '${config.attestationName}' to ${trailUrl}`);

  const failures = reports.flatMap((r) => r.cases).filter((c) => c.outcome === 'failure' || c.outcome === 'error').slice(0, 100);
  return { trailUrl, files: read, totals, suites, failures, compliant: totals.failed === 0 && totals.errors === 0, attachment, attested: true };
}

/** The API's `junit_results`: one entry per suite, names within the server's limit; past 10,000 suites the rest are summed into one. */
export function junitResults(suites: readonly JunitSuiteResult[]) {
  const entry = (s: Pick<JunitSuiteResult, 'name' | 'failures' | 'errors' | 'skipped' | 'total' | 'duration' | 'timestamp'>) => ({
    name: s.name.slice(0, 256), failures: s.failures, errors: s.errors, skipped: s.skipped, total: s.total,
    duration: Math.max(0, s.duration), timestamp: s.timestamp,
  });
  if (suites.length <= maxSuites) return suites.map(entry);
  const rest = suites.slice(maxSuites - 1);
  const sum = (key: 'failures' | 'errors' | 'skipped' | 'total' | 'duration') => rest.reduce((n, s) => n + s[key], 0);
  return [...suites.slice(0, maxSuites - 1).map(entry), entry({
    name: `(${rest.length} more suites)`, failures: sum('failures'), errors: sum('errors'), skipped: sum('skipped'), total: sum('total'), duration: sum('duration'), timestamp: null,
  })];
}
