/**
 * The whole job, for the Action and the CLI alike: find the JUnit files, read them, begin the
 * trail, attest the results with the files attached. What it reports goes through a reporter,
 * so GitHub's annotations and a terminal both work.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fillPath, limits, paths, type attestJunit, type beginTrail as beginTrailOperation, type DataOf, type JunitResult } from '@trailproof/schema';
import { buildAttachment } from './attachment.ts';
import { createClient } from './client.ts';
import { findJunitFiles } from './find-files.ts';
import type { RunContext } from './git-context.ts';
import type { AttestConfig } from './inputs.ts';
import { RerunMerger } from './reruns.ts';
import { JunitReadError, readJunitFile, summarize, type JunitCase, type JunitFileReport, type JunitSuiteResult, type JunitTotals } from '@trailproof/junit';

export interface Reporter {
  info(message: string): void;
  warning(message: string): void;
}

export interface AttestResult {
  /** The trail's page in the server's console (`trailPageUrl`). */
  trailUrl: string;
  /** The JUnit files read (XML that is not JUnit left out). */
  files: string[];
  /** Null until every file has been read. */
  totals: JunitTotals | null;
  suites: JunitSuiteResult[];
  /** Failed and errored cases (with messages), at most `maxListedFailures`. */
  failures: JunitCase[];
  /** Failed and errored cases left out of `failures`. */
  moreFailures: number;
  /** No failures and no errors. */
  compliant: boolean;
  /** What was attached, if anything. */
  attachment: { name: string; size: number } | null;
  /** Whether the trail was begun (or updated). */
  begun: boolean;
  /** False when nothing was attested (no files or no tests with require-tests off, no token, or a failure). */
  attested: boolean;
  /** Why nothing was sent to the server, when `api-token` was empty and `on-missing-token` is warn. */
  unattested?: string;
  /** With `reruns: merge`: cases written more than once, and the runs beyond the first. */
  reruns?: { repeatedCases: number; repeats: number };
}

/** Why nothing is attested without a token (with `on-missing-token: warn`). */
export const missingTokenReason =
  'api-token is empty (a pull request from a fork gets no secrets) and on-missing-token is warn: the results were read, not attested';

/** Thrown when the flow fails part-way: `result` holds what was done and read before the failure. */
export class AttestError extends Error {
  override readonly name = 'AttestError';
  constructor(
    message: string,
    readonly result: AttestResult,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The trail's page in the server's console (`/ui`), which a person opens from the job summary and
 * signs in to; its JSON stays at `/api/v2/trails/...` for clients with a token.
 */
export function trailPageUrl(config: Pick<AttestConfig, 'serverUrl' | 'org' | 'flow' | 'trail'>): string {
  const segment = encodeURIComponent;
  return `${config.serverUrl}/ui/${segment(config.org)}/flows/${segment(config.flow)}/trails/${segment(config.trail)}`;
}

/** Failed tests listed in the result (and the job summary). */
export const maxListedFailures = 100;

/**
 * Finds and reads the JUnit files, begins the trail and attests the results.
 * @throws AttestError (with what is known so far) for anything but a bad input.
 */
export async function attestJunitResults(config: AttestConfig, run: RunContext, reporter: Reporter): Promise<AttestResult> {
  const result: AttestResult = {
    trailUrl: trailPageUrl(config),
    files: [],
    totals: null,
    suites: [],
    failures: [],
    moreFailures: 0,
    compliant: true,
    attachment: null,
    begun: false,
    attested: false,
  };
  try {
    await attest(config, run, reporter, result);
    return result;
  } catch (error) {
    throw new AttestError(error instanceof Error ? error.message : String(error), result, { cause: error });
  }
}

/** The flow itself; fills in `result` as it goes. */
async function attest(config: AttestConfig, run: RunContext, reporter: Reporter, result: AttestResult): Promise<void> {
  const client = createClient({ serverUrl: config.serverUrl, apiToken: config.apiToken, onRetry: (m) => reporter.warning(m) });
  const common = {
    ...(run.commit ? { git_commit_info: run.commit } : {}),
    ...(run.repo ? { repo_info: run.repo } : {}),
    ...(run.originUrl ? { origin_url: run.originUrl } : {}),
  };
  if (!config.apiToken) result.unattested = missingTokenReason;
  const beginTrail = async () => {
    if (result.unattested) {
      reporter.warning(`Nothing attested: ${result.unattested}`);
      return;
    }
    const form = new FormData();
    const data: DataOf<typeof beginTrailOperation> = { name: config.trail, ...common, ...(config.description ? { description: config.description } : {}) };
    form.append('data_json', JSON.stringify(data));
    if (config.templateFile) form.append('template_file', new Blob([await readFile(resolve(run.workspace, config.templateFile))]), 'template.yml');
    const begun = await client.request('PUT', fillPath(paths.beginTrail, { org: config.org, flow_name: config.flow }), form);
    result.begun = true;
    reporter.info(begun.status === 201 ? `Began trail ${config.trail}` : `Trail ${config.trail} exists already; updated it`);
  };

  const files = await findJunitFiles(config.junitPaths, run.workspace);
  if (!files.length) {
    const message = `No JUnit files matched ${config.junitPaths.join(', ')} under ${run.workspace}`;
    if (config.requireTests) throw new Error(message);
    reporter.warning(message);
    // Nothing to attest, but the run (and its template) is still recorded on the trail.
    result.totals = summarize([]);
    await beginTrail();
    return;
  }

  const reports: JunitFileReport[] = [];
  const failures: JunitCase[] = [];
  let moreFailures = 0;
  const merger = config.reruns === 'merge' ? new RerunMerger() : undefined;
  for (const file of files) {
    try {
      // Each file keeps only the failed cases still to be listed: memory does not grow with the cases.
      const report = await readJunitFile(file, { maxFailures: maxListedFailures - failures.length, ...(merger ? { onCase: merger.add } : {}) });
      reports.push(report);
      failures.push(...report.failures);
      moreFailures += report.moreFailures;
      result.files.push(file);
    } catch (error) {
      // A loose glob catches other XML (a failsafe-summary.xml): skip it; corrupt XML is an error.
      if (error instanceof JunitReadError && error.kind === 'not-junit') reporter.warning(`Skipped ${file}: not a JUnit report`);
      else throw error;
    }
  }
  let suites = reports.flatMap((r) => r.suites);
  if (merger) {
    const merged = merger.merge(suites, maxListedFailures);
    ({ suites } = merged);
    failures.splice(0, failures.length, ...merged.failures);
    moreFailures = merged.moreFailures;
    result.reruns = { repeatedCases: merged.repeatedCases, repeats: merged.repeats };
    reporter.info(`reruns: merge: ${merged.repeatedCases} test(s) ran more than once (${merged.repeats} reruns); each counts once, by its last run`);
  }
  const totals = summarize([{ file: '', suites, declared: [], failures: [], moreFailures: 0 }]);
  Object.assign(result, { totals, suites, compliant: totals.failed === 0 && totals.errors === 0, failures, moreFailures });
  reporter.info(
    `Read ${result.files.length} JUnit file(s): ${totals.total} tests, ${totals.failed} failed, ${totals.errors} errors, ${totals.skipped} skipped, ${totals.flaky} flaky`,
  );
  if (totals.total === 0) {
    const message = `No test found in ${result.files.length} JUnit file(s)`;
    if (config.requireTests) throw new Error(message);
    reporter.warning(message);
    await beginTrail();
    return;
  }

  await beginTrail();
  if (result.unattested) return;

  const form = new FormData();
  const data: DataOf<typeof attestJunit> = {
    attestation_name: config.attestationName,
    junit_results: junitResults(result.suites),
    ...common,
    ...(config.description ? { description: config.description } : {}),
    ...(config.artifactFingerprint ? { artifact_fingerprint: config.artifactFingerprint } : {}),
  };
  form.append('data_json', JSON.stringify(data));
  if (config.uploadResults) {
    const built = await buildAttachment(result.files, run.workspace);
    if (built.kind === 'too-large') {
      reporter.warning(`Attesting without the JUnit files: ${built.reason}`);
    } else {
      // The DOM's Blob type (in the workspace's type check since the console's JSX) takes no SharedArrayBuffer views.
      form.append('attachment_file', new Blob([built.bytes as Uint8Array<ArrayBuffer>]), built.name);
      result.attachment = { name: built.name, size: built.bytes.byteLength };
    }
  }
  await client.request('POST', fillPath(paths.attestJunit, { org: config.org, flow_name: config.flow, trail_name: config.trail }), form);
  result.attested = true;
  reporter.info(`Attested '${config.attestationName}' to ${result.trailUrl}`);
}

/** The API's `junit_results`: one entry per suite, names within the server's limit; past `limits.junitResults` suites the rest are summed into one. */
export function junitResults(suites: readonly JunitSuiteResult[]): JunitResult[] {
  const maxSuites = limits.junitResults;
  const entry = (s: Pick<JunitSuiteResult, 'name' | 'failures' | 'errors' | 'skipped' | 'total' | 'duration' | 'timestamp'>) => ({
    name: s.name.slice(0, limits.shortText),
    failures: s.failures,
    errors: s.errors,
    skipped: s.skipped,
    total: s.total,
    duration: Math.max(0, s.duration),
    timestamp: s.timestamp,
  });
  if (suites.length <= maxSuites) return suites.map(entry);
  const rest = suites.slice(maxSuites - 1);
  const sum = (key: 'failures' | 'errors' | 'skipped' | 'total' | 'duration') => rest.reduce((n, s) => n + s[key], 0);
  return [
    ...suites.slice(0, maxSuites - 1).map(entry),
    entry({
      name: `(${rest.length} more suites)`,
      failures: sum('failures'),
      errors: sum('errors'),
      skipped: sum('skipped'),
      total: sum('total'),
      duration: sum('duration'),
      timestamp: null,
    }),
  ];
}
