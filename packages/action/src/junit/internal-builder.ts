/**
 * Turns the element events of a JUnit XML document into a `JunitFileReport`. Independent of the
 * XML parser: internal-sax.ts feeds it. The rules are documented in packages/action/README.md,
 * "JUnit reader rules".
 */
import { basename } from 'node:path';
import { cut, detach } from './internal-strings.ts';
import { parseCount, parseTime, parseTimestamp } from './internal-time.ts';
import { JunitReadError, type CaseOutcome, type JunitCase, type JunitFileReport, type JunitSuiteDeclared, type JunitSuiteResult } from './types.ts';

/** Deepest element nesting accepted (a bound on memory, far beyond any real report). */
export const MAX_DEPTH = 10_000;
/** Most attributes accepted on one element. */
export const MAX_ATTRIBUTES = 10_000;

/**
 * Every attribute the builder reads (the type below makes reading any other a compile error);
 * internal-plain.ts hands over only these.
 */
export const READ_ATTRIBUTES = [
  'name',
  'classname',
  'time',
  'timestamp',
  'status',
  'message',
  'tests',
  'failures',
  'errors',
  'skipped',
  'file',
  'line',
] as const;
/** An element's attributes, as far as the builder is concerned. */
export type Attributes = Partial<Record<(typeof READ_ATTRIBUTES)[number], string>>;

/** `status` attribute values (lower-cased, without spaces, dashes or underscores) that mean "skipped". */
const SKIP_STATUSES = new Set(['disabled', 'skipped', 'skip', 'notrun', 'ignored', 'ignore', 'notexecuted', 'pending', 'excluded']);

/** Result elements that are direct children of a `<testcase>`, with their severity rank. */
const RESULT_RANK = new Map([
  ['flakyFailure', 1],
  ['flakyError', 1],
  ['skipped', 2],
  ['failure', 3],
  ['rerunFailure', 3],
  ['error', 4],
  ['rerunError', 4],
]);

/** Children of a result element whose text is never collected. */
const MUTED = new Set(['system-out', 'system-err']);

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** A `<testsuite>` element, or the `<testsuites>` root (which only holds cases directly under it). */
interface Container {
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

interface CaseState {
  className: string;
  name: string;
  file: string | undefined;
  line: string | undefined;
  time: number | null;
  statusSkipped: boolean;
  hasFailure: boolean;
  hasError: boolean;
  hasSkipped: boolean;
  hasFlaky: boolean;
  /** Rank of the deciding result element so far (0: none). */
  rank: number;
  message: string | undefined;
  parts: string[];
  length: number;
}

type Frame = 'container' | 'case' | 'result' | 'muted' | 'other';

export interface BuilderOptions {
  maxDetails: number;
  /** Failed or errored cases kept in the report. */
  maxFailures: number;
  /** Given every listed case; without it, only the kept failures are ever built. */
  onCase: ((testCase: JunitCase) => void) | undefined;
}

/** Carries an error thrown by `onCase` through the parser, which would otherwise call it corrupt XML. */
export class CaseHandlerError extends Error {
  constructor(readonly error: unknown) {
    super('onCase failed');
  }
}

function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

export class ReportBuilder {
  private readonly frames: Frame[] = [];
  private readonly containers: Container[] = [];
  private current: CaseState | null = null;
  /** The case whose deciding result element is open (its text is collected). */
  private collecting: CaseState | null = null;
  private mutedDepth = 0;
  private readonly interned = new Map<string, string>();
  private readonly fileBase: string;
  private readonly maxDetails: number;
  private readonly failures: JunitCase[] = [];
  private moreFailures = 0;
  private readonly suites: JunitSuiteResult[] = [];
  private readonly declared: JunitSuiteDeclared[] = [];

  constructor(
    private readonly file: string,
    private readonly options: BuilderOptions,
  ) {
    this.fileBase = basename(file);
    this.maxDetails = options.maxDetails;
  }

  /** Whether a case's details are still wanted: by `onCase`, or for a failure the report has room for. */
  private get wantsDetails(): boolean {
    return this.options.onCase !== undefined || this.failures.length < this.options.maxFailures;
  }

  /** Whether text and CDATA are currently wanted (inside the deciding result element). */
  get wantsText(): boolean {
    return this.collecting !== null && this.mutedDepth === 0;
  }

  private intern(s: string): string {
    let v = this.interned.get(s);
    if (v === undefined) {
      v = detach(s);
      this.interned.set(v, v);
    }
    return v;
  }

  openTag(qname: string, attrs: Attributes, line: number): void {
    if (this.frames.length >= MAX_DEPTH) {
      throw new JunitReadError(`${this.file}:${line}: elements nested deeper than ${MAX_DEPTH}`, this.file, 'corrupt', line);
    }
    const name = localName(qname);
    const top = this.frames.at(-1);
    if (top === undefined) {
      if (name !== 'testsuites' && name !== 'testsuite') {
        throw new JunitReadError(
          `${this.file}:${line}: not a JUnit XML report (root element <${qname}>, expected <testsuites> or <testsuite>)`,
          this.file,
          'not-junit',
          line,
        );
      }
      this.openContainer(name === 'testsuites', attrs);
      return;
    }
    if (top === 'muted' || (top === 'result' && MUTED.has(name))) {
      this.mutedDepth++;
      this.frames.push('muted');
    } else if (top === 'case') {
      this.openCaseChild(name, attrs);
    } else if (top === 'result' || this.current !== null) {
      this.frames.push('other');
    } else if (name === 'testsuite') {
      this.openContainer(false, attrs);
    } else if (name === 'testcase') {
      this.openCase(attrs);
    } else {
      this.frames.push('other');
    }
  }

  closeTag(): void {
    const frame = this.frames.pop();
    if (frame === 'muted') this.mutedDepth--;
    else if (frame === 'result') this.closeResult();
    else if (frame === 'case') this.closeCase();
    else if (frame === 'container') this.closeContainer();
  }

  /** Text or CDATA inside the deciding result element (callers check `wantsText`). */
  text(s: string): void {
    const c = this.collecting;
    if (c === null || this.mutedDepth > 0 || c.length >= this.maxDetails) return;
    const t = c.length === 0 ? s.trimStart() : s;
    if (t === '') return;
    const part = cut(t, this.maxDetails - c.length);
    c.parts.push(detach(part));
    c.length += part.length;
  }

  finish(): JunitFileReport {
    return { file: this.file, suites: this.suites, declared: this.declared, failures: this.failures, moreFailures: this.moreFailures };
  }

  private openContainer(isRoot: boolean, attrs: Attributes): void {
    const parent = this.containers.at(-1);
    if (parent && !isRoot) parent.hasNestedSuite = true;
    const declared: Partial<Counts> = {};
    for (const key of ['tests', 'failures', 'errors', 'skipped'] as const) {
      const n = parseCount(attrs[key]);
      if (n !== undefined) declared[key] = n;
    }
    const name = isRoot ? undefined : attrs.name;
    this.containers.push({
      isRoot,
      name: name === undefined ? null : detach(name),
      display: name ? this.intern(name) : this.fileBase,
      declared,
      time: parseTime(attrs.time),
      timestamp: parseTimestamp(attrs.timestamp) ?? parent?.timestamp ?? null,
      direct: { total: 0, failures: 0, errors: 0, skipped: 0, flaky: 0, time: 0 },
      marks: { tests: 0, failures: 0, errors: 0, skipped: 0 },
      hasNestedSuite: false,
    });
    this.frames.push('container');
  }

  private closeContainer(): void {
    const c = this.containers.pop();
    if (c === undefined) return;
    const { direct, declared, marks } = c;
    // Object literals written out, not spread from a shared base: V8 builds a spread object
    // several times slower, and this runs once per suite (once per file for small reports).
    if (direct.total > 0) {
      const duration = c.time !== null && !c.hasNestedSuite && !c.isRoot ? c.time : direct.time;
      this.suites.push({
        name: c.display,
        timestamp: c.timestamp,
        failures: direct.failures,
        errors: direct.errors,
        skipped: direct.skipped,
        total: direct.total,
        duration,
        flaky: direct.flaky,
      });
    } else if (!c.isRoot && !c.hasNestedSuite) {
      const d = { tests: declared.tests ?? 0, failures: declared.failures ?? 0, errors: declared.errors ?? 0, skipped: declared.skipped ?? 0 };
      if (d.tests > 0 || d.failures > 0 || d.errors > 0 || d.skipped > 0) {
        this.suites.push({
          name: c.display,
          timestamp: c.timestamp,
          failures: d.failures,
          errors: d.errors,
          skipped: d.skipped,
          total: d.tests,
          duration: c.time ?? 0,
          flaky: 0,
        });
      }
    }
    if (c.isRoot) return;
    this.declared.push({
      name: c.name,
      tests: declared.tests ?? marks.tests,
      skipped: declared.skipped ?? marks.skipped,
      failures: declared.failures ?? marks.failures,
      errors: declared.errors ?? marks.errors,
    });
    const parent = this.containers.at(-1);
    if (parent) {
      parent.marks.tests += marks.tests;
      parent.marks.failures += marks.failures;
      parent.marks.errors += marks.errors;
      parent.marks.skipped += marks.skipped;
    }
  }

  private openCase(attrs: Attributes): void {
    const { status } = attrs;
    this.current = {
      className: attrs.classname ?? '',
      name: attrs.name ?? '',
      file: attrs.file || undefined,
      line: attrs.line,
      time: parseTime(attrs.time),
      statusSkipped: status !== undefined && SKIP_STATUSES.has(status.toLowerCase().replace(/[\s_-]/g, '')),
      hasFailure: false,
      hasError: false,
      hasSkipped: false,
      hasFlaky: false,
      rank: 0,
      message: undefined,
      parts: [],
      length: 0,
    };
    this.frames.push('case');
  }

  private openCaseChild(name: string, attrs: Attributes): void {
    const c = this.current;
    const rank = RESULT_RANK.get(name);
    if (c === null || rank === undefined) {
      this.frames.push('other');
      return;
    }
    if (rank === 1) c.hasFlaky = true;
    else if (rank === 2) c.hasSkipped = true;
    else if (rank === 3) c.hasFailure = true;
    else c.hasError = true;
    if (rank > c.rank) {
      // A more severe element decides the outcome: its message and text replace earlier ones.
      c.rank = rank;
      const message = this.wantsDetails ? attrs.message : undefined;
      c.message = message ? detach(cut(message, this.maxDetails)) : undefined;
      c.parts = [];
      c.length = 0;
      // Nobody will see the text of a case that is neither handed on nor kept: skip it.
      this.collecting = this.wantsDetails ? c : null;
    }
    this.frames.push('result');
  }

  private closeResult(): void {
    this.collecting = null;
  }

  private closeCase(): void {
    const c = this.current;
    this.current = null;
    this.collecting = null;
    if (c === null) return;
    const outcome: CaseOutcome = c.rank === 4 ? 'error' : c.rank === 3 ? 'failure' : c.rank === 2 || c.statusSkipped ? 'skipped' : 'success';
    const flaky = outcome === 'success' && c.hasFlaky;
    // Message and details only where the deciding element matches the outcome.
    const decided = c.rank >= 2 || flaky;
    const container = this.containers.at(-1);
    if (container) {
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
    // A case with neither a name nor a class name cannot be identified: counted, not listed.
    if (c.name === '' && c.className === '') return;
    const failed = outcome === 'failure' || outcome === 'error';
    const kept = failed && this.failures.length < this.options.maxFailures;
    if (failed && !kept) this.moreFailures++;
    const { onCase } = this.options;
    // Without a handler a case that is not kept is never built: memory stays flat however many cases.
    if (!kept && onCase === undefined) return;
    const kase: JunitCase = {
      className: this.intern(c.className),
      name: detach(c.name),
      outcome,
      time: c.time,
      flaky,
      suiteName: container?.display ?? this.fileBase,
    };
    if (c.file !== undefined) kase.file = detach(cut(c.file, this.maxDetails));
    const line = c.line !== undefined && /^\s*[1-9][0-9]{0,8}\s*$/.test(c.line) ? Number(c.line) : undefined;
    if (line !== undefined) kase.line = line;
    if (decided && c.message !== undefined) kase.message = c.message;
    if (decided) {
      const details = c.parts.join('').trimEnd();
      if (details !== '') kase.details = detach(details);
    }
    if (kept) this.failures.push(kase);
    if (onCase !== undefined) {
      try {
        onCase(kase);
      } catch (error) {
        throw new CaseHandlerError(error);
      }
    }
  }
}
