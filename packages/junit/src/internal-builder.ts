/**
 * Turns the element events of a JUnit XML document into a `JunitFileReport`. Independent of the
 * XML parser: internal-sax.ts feeds it. The rules are documented in packages/junit/README.md,
 * "Rules".
 */
import { basename } from 'node:path';
import type { Attributes } from './internal-attributes.ts';
import { caseOutcome, finishCase, isFlaky, markResult, RESULT_RANK, startCase, type CaseState } from './internal-case.ts';
import { closeDeclared, countCase, startContainer, suiteResult, type Container } from './internal-suite.ts';
import { cut, detach } from './internal-strings.ts';
import { JunitReadError, type JunitCase, type JunitFileReport, type JunitSuiteDeclared, type JunitSuiteResult } from './types.ts';

/** Deepest element nesting accepted (a bound on memory, far beyond any real report). */
export const MAX_DEPTH = 10_000;

/** Children of a result element whose text is never collected. */
const MUTED = new Set(['system-out', 'system-err']);
/** What a result element says of itself when nobody will see it. */
const noAttributes: Attributes = {};

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
    const name = isRoot ? undefined : attrs.name;
    this.containers.push(startContainer(isRoot, attrs, this.containers.at(-1), name ? this.intern(name) : this.fileBase));
    this.frames.push('container');
  }

  private closeContainer(): void {
    const c = this.containers.pop();
    if (c === undefined) return;
    const suite = suiteResult(c);
    if (suite !== null) this.suites.push(suite);
    if (!c.isRoot) this.declared.push(closeDeclared(c, this.containers.at(-1)));
  }

  private openCase(attrs: Attributes): void {
    this.current = startCase(attrs);
    this.frames.push('case');
  }

  private openCaseChild(name: string, attrs: Attributes): void {
    const c = this.current;
    const rank = RESULT_RANK.get(name);
    if (c === null || rank === undefined) {
      this.frames.push('other');
      return;
    }
    const wanted = this.wantsDetails;
    // Nobody will see the text of a case that is neither handed on nor kept: skip it.
    if (markResult(c, rank, wanted ? attrs : noAttributes, this.maxDetails)) this.collecting = wanted ? c : null;
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
    const outcome = caseOutcome(c);
    const flaky = isFlaky(c, outcome);
    const container = this.containers.at(-1);
    if (container) countCase(container, c, outcome, flaky);
    // A case with neither a name nor a class name cannot be identified: counted, not listed.
    if (c.name === '' && c.className === '') return;
    const failed = outcome === 'failure' || outcome === 'error';
    const kept = failed && this.failures.length < this.options.maxFailures;
    if (failed && !kept) this.moreFailures++;
    const { onCase } = this.options;
    // Without a handler a case that is not kept is never built: memory stays flat however many cases.
    if (!kept && onCase === undefined) return;
    const kase = finishCase(c, outcome, flaky, container?.display ?? this.fileBase, this.maxDetails, (s) => this.intern(s));
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
