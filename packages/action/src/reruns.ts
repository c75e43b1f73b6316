/**
 * `reruns: merge`: runners that retry a failed test (gotestsum --rerun-fails, pytest-rerunfailures,
 * Jest retryTimes, Gradle's test-retry) write the same case once per run. Merged, a case (same
 * suite, class name and name) counts once, by its last outcome; failed and then passed, it counts
 * as passed and flaky.
 */
import { createHash } from 'node:crypto';
import type { CaseOutcome, JunitCase, JunitSuiteResult } from '@trailproof/junit';

interface Entry {
  suite: string;
  outcome: CaseOutcome;
  flaky: boolean;
  runs: number;
  /** Some run before the last failed or errored. */
  failedBefore: boolean;
  /** The last run, kept while it is a failure (for the list of failed tests and the annotations). */
  last: JunitCase | undefined;
}

const failed = (outcome: CaseOutcome) => outcome === 'failure' || outcome === 'error';
/** Kept of a failure's message and details: enough for the summary and an annotation. */
const keptText = 2000;

export interface MergedResults {
  suites: JunitSuiteResult[];
  failures: JunitCase[];
  moreFailures: number;
  /** Cases written more than once, and the runs beyond the first. */
  repeatedCases: number;
  repeats: number;
}

/** Collects every case (give `add` to the reader's `onCase`), then merges the suites' counts. */
export class RerunMerger {
  /**
   * One small entry per distinct case, keyed by a digest of suite, class name and name (names can
   * be kilobytes long); only the last run of a case still failing keeps its text.
   */
  private readonly cases = new Map<string, Entry>();
  private repeats = 0;
  private repeatedCases = 0;

  readonly add = (c: JunitCase): void => {
    const key = createHash('sha256').update(`${c.suiteName}\0${c.className}\0${c.name}`).digest('base64');
    let entry = this.cases.get(key);
    if (entry === undefined) {
      entry = { suite: c.suiteName, outcome: c.outcome, runs: 1, flaky: false, failedBefore: false, last: undefined };
      this.cases.set(key, entry);
    } else {
      if (++entry.runs === 2) this.repeatedCases++;
      this.repeats++;
      entry.failedBefore ||= failed(entry.outcome);
    }
    entry.outcome = c.outcome;
    entry.flaky = c.flaky || (c.outcome === 'success' && entry.failedBefore);
    entry.last = failed(c.outcome) ? { ...c, message: c.message?.slice(0, keptText), details: c.details?.slice(0, keptText) } : undefined;
  };

  /**
   * The reports' suites with the counts of the merged cases: one entry per suite name that held
   * cases (its duration the sum over all runs), in the order the suites first appear; suites
   * without cases (declared counts only) as they are. Then the failed cases, at most `maxFailures`.
   */
  merge(suites: readonly JunitSuiteResult[], maxFailures: number): MergedResults {
    const counts = new Map<string, JunitSuiteResult>();
    const failures: JunitCase[] = [];
    let moreFailures = 0;
    for (const e of this.cases.values()) {
      let s = counts.get(e.suite);
      if (s === undefined) counts.set(e.suite, (s = { name: e.suite, total: 0, failures: 0, errors: 0, skipped: 0, flaky: 0, duration: 0, timestamp: null }));
      s.total++;
      if (e.outcome === 'failure') s.failures++;
      else if (e.outcome === 'error') s.errors++;
      else if (e.outcome === 'skipped') s.skipped++;
      if (e.flaky) s.flaky++;
      if (e.last) {
        if (failures.length < maxFailures) failures.push(e.last);
        else moreFailures++;
      }
    }
    const merged: JunitSuiteResult[] = [];
    const emitted = new Map<string, JunitSuiteResult>();
    for (const suite of suites) {
      const s = counts.get(suite.name);
      if (s === undefined) {
        merged.push(suite);
        continue;
      }
      const first = emitted.get(suite.name);
      if (first) {
        first.duration += suite.duration;
        continue;
      }
      const entry = { ...s, duration: suite.duration, timestamp: suite.timestamp };
      emitted.set(suite.name, entry);
      merged.push(entry);
    }
    return { suites: merged, failures, moreFailures, repeatedCases: this.repeatedCases, repeats: this.repeats };
  }
}
