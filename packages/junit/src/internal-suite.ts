/**
 * A `<testsuite>` (or the `<testsuites>` root) while the report builder reads it, and the suite
 * result and declared counts it becomes (packages/junit/README.md, "Rules").
 */
import type { Attributes } from './internal-attributes.ts';
import type { CaseState } from './internal-case.ts';
import { detach } from './internal-strings.ts';
import { parseCount, parseTime, parseTimestamp } from './internal-time.ts';
import type { CaseOutcome, JunitSuiteDeclared, JunitSuiteResult } from './types.ts';

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** A `<testsuite>` element, or the `<testsuites>` root (which only holds cases directly under it). */
export interface Container {
  isRoot: boolean;
  /** `name` attribute (null where absent), for `declared`. */
  name: string | null;
  /** Name for `suites` and cases: the `name` attribute, else the file's base name. */
  display: string;
  declared: Partial<Counts>;
  time: number | null;
  timestamp: number | null;
  /** Outcome counts of the cases directly inside. */
  direct: { total: number; failures: number; errors: number; skipped: number; flaky: number; time: number };
  /** Result-element counts of all cases inside, nested suites included (the `declared` fallback). */
  marks: Counts;
  hasNestedSuite: boolean;
}

/** The state of a container just opened with `attrs` inside `parent`, shown as `display`. */
export function startContainer(isRoot: boolean, attrs: Attributes, parent: Container | undefined, display: string): Container {
  if (parent && !isRoot) parent.hasNestedSuite = true;
  const declared: Partial<Counts> = {};
  for (const key of ['tests', 'failures', 'errors', 'skipped'] as const) {
    const n = parseCount(attrs[key]);
    if (n !== undefined) declared[key] = n;
  }
  const name = isRoot ? undefined : attrs.name;
  return {
    isRoot,
    name: name === undefined ? null : detach(name),
    display,
    declared,
    time: parseTime(attrs.time),
    timestamp: parseTimestamp(attrs.timestamp) ?? parent?.timestamp ?? null,
    direct: { total: 0, failures: 0, errors: 0, skipped: 0, flaky: 0, time: 0 },
    marks: { tests: 0, failures: 0, errors: 0, skipped: 0 },
    hasNestedSuite: false,
  };
}

/** Counts a closed case into the container directly around it. */
export function countCase(container: Container, c: CaseState, outcome: CaseOutcome, flaky: boolean): void {
  const d = container.direct;
  d.total++;
  if (outcome === 'failure') d.failures++;
  else if (outcome === 'error') d.errors++;
  else if (outcome === 'skipped') d.skipped++;
  if (flaky) d.flaky++;
  d.time += c.time ?? 0;
  const m = container.marks;
  m.tests++;
  if (c.hasFailure) m.failures++;
  if (c.hasError) m.errors++;
  if (c.hasSkipped || c.statusSkipped) m.skipped++;
}

/**
 * The suite result of a closed container: its direct cases counted, else (a suite without cases
 * or nested suites) its declared counts where any is above zero; null where neither applies.
 */
export function suiteResult(c: Container): JunitSuiteResult | null {
  const { direct, declared } = c;
  // Object literals written out, not spread from a shared base: V8 builds a spread object
  // several times slower, and this runs once per suite (once per file for small reports).
  if (direct.total > 0) {
    const duration = c.time !== null && !c.hasNestedSuite && !c.isRoot ? c.time : direct.time;
    return {
      name: c.display,
      timestamp: c.timestamp,
      failures: direct.failures,
      errors: direct.errors,
      skipped: direct.skipped,
      total: direct.total,
      duration,
      flaky: direct.flaky,
    };
  }
  if (c.isRoot || c.hasNestedSuite) return null;
  const d = { tests: declared.tests ?? 0, failures: declared.failures ?? 0, errors: declared.errors ?? 0, skipped: declared.skipped ?? 0 };
  if (d.tests === 0 && d.failures === 0 && d.errors === 0 && d.skipped === 0) return null;
  return {
    name: c.display,
    timestamp: c.timestamp,
    failures: d.failures,
    errors: d.errors,
    skipped: d.skipped,
    total: d.tests,
    duration: c.time ?? 0,
    flaky: 0,
  };
}

/**
 * The declared counts of a closed `<testsuite>` (each attribute, else what its cases' result
 * elements add up to), which it also adds to its parent's.
 */
export function closeDeclared(c: Container, parent: Container | undefined): JunitSuiteDeclared {
  const { declared, marks } = c;
  if (parent) {
    parent.marks.tests += marks.tests;
    parent.marks.failures += marks.failures;
    parent.marks.errors += marks.errors;
    parent.marks.skipped += marks.skipped;
  }
  return {
    name: c.name,
    tests: declared.tests ?? marks.tests,
    skipped: declared.skipped ?? marks.skipped,
    failures: declared.failures ?? marks.failures,
    errors: declared.errors ?? marks.errors,
  };
}
