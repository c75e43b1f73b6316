/**
 * Types of the JUnit reader's results. The reader is a pure module (no `@actions/*` imports)
 * so that the action, the CLI, the server and benchmarks can share it.
 */

/** Outcome of one test case; where a case has several result elements the most severe wins. */
export type CaseOutcome = 'success' | 'skipped' | 'failure' | 'error';

/** One `<testcase>`, in document order. */
export interface JunitCase {
  /** `classname` attribute ('' when absent). */
  className: string;
  /** `name` attribute ('' when absent). */
  name: string;
  outcome: CaseOutcome;
  /** Seconds, or null when the case has no (readable) `time`. */
  time: number | null;
  /** Passed only on a rerun (Surefire `flakyFailure` / `flakyError`). Counted as success. */
  flaky: boolean;
  /** `message` of the deciding result element, if any. */
  message?: string;
  /** `type` of the deciding result element, if any: an exception's class, which some runners write instead of a message. */
  type?: string;
  /** Text body (stack trace) of the deciding result element, truncated to a bounded length. */
  details?: string;
  /** Name of the innermost suite that holds the case. */
  suiteName: string;
  /** The source file the case's `file` attribute names (pytest, Jest, PHPUnit, Go write it), as written. */
  file?: string;
  /** The case's `line` attribute, where it is a positive integer. */
  line?: number;
}

/** One `<testsuite>` element (outer and nested), with the counts its attributes declare. */
export interface JunitSuiteDeclared {
  name: string | null;
  tests: number;
  skipped: number;
  failures: number;
  errors: number;
}

/**
 * One entry of the API's `junit_results`: a suite that directly holds test cases, with counts
 * from its cases; or a suite with no cases but declared counts, with its attributes.
 */
export interface JunitSuiteResult {
  name: string;
  failures: number;
  errors: number;
  skipped: number;
  total: number;
  /**
   * Seconds: the suite's `time` attribute where present and the suite holds no nested suite;
   * otherwise the sum of the times of the cases directly inside (a missing time counts 0).
   */
  duration: number;
  /** Epoch seconds, or null where neither the suite nor an enclosing suite has a timestamp. */
  timestamp: number | null;
  /** Cases that passed only on a rerun. */
  flaky: number;
}

/**
 * What is kept of one file: per-suite counts and at most `maxFailures` failed cases, so memory
 * does not grow with the number of test cases. Every case goes to the `onCase` option.
 */
export interface JunitFileReport {
  /** Path as given to the reader. */
  file: string;
  suites: JunitSuiteResult[];
  declared: JunitSuiteDeclared[];
  /** The first failed or errored cases (outcome 'failure' or 'error'), in document order, at most `maxFailures`. */
  failures: JunitCase[];
  /** Failed or errored cases read but not kept in `failures`. */
  moreFailures: number;
}

/** Totals over the `suites` of one or more files (see `summarize`). */
export interface JunitTotals {
  /** Number of `suites` entries. */
  suites: number;
  total: number;
  /** total - failed - errors - skipped, per suite and never below 0. */
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  flaky: number;
  /** Seconds, the sum of the suites' durations. */
  duration: number;
}

/** Thrown for XML that is corrupt or not JUnit. `line` is 1-based where known. */
export class JunitReadError extends Error {
  override readonly name = 'JunitReadError';
  constructor(
    message: string,
    readonly file: string,
    /** 'corrupt': not well-formed XML (or refused DOCTYPE/entities); 'not-junit': well-formed but no JUnit root. */
    readonly kind: 'corrupt' | 'not-junit',
    readonly line?: number,
    /** 1-based column, where known (corrupt XML). */
    readonly column?: number,
  ) {
    super(message);
  }
}
