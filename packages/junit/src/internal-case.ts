/**
 * A `<testcase>` while the report builder reads it, and the `JunitCase` it becomes: which result
 * element decides its outcome, and what of its message and text is kept (packages/junit/README.md,
 * "Rules").
 */
import type { Attributes } from './internal-attributes.ts';
import { cut, detach } from './internal-strings.ts';
import { parseTime } from './internal-time.ts';
import type { CaseOutcome, JunitCase } from './types.ts';

/** `status` attribute values (lower-cased, without spaces, dashes or underscores) that mean "skipped". */
const SKIP_STATUSES = new Set(['disabled', 'skipped', 'skip', 'notrun', 'ignored', 'ignore', 'notexecuted', 'pending', 'excluded']);

/** Result elements that are direct children of a `<testcase>`, with their severity rank. */
export const RESULT_RANK = new Map([
  ['flakyFailure', 1],
  ['flakyError', 1],
  ['skipped', 2],
  ['failure', 3],
  ['rerunFailure', 3],
  ['error', 4],
  ['rerunError', 4],
]);

/** An open `<testcase>`. */
export interface CaseState {
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
  type: string | undefined;
  parts: string[];
  length: number;
}

/** The state of a `<testcase>` just opened with `attrs`. */
export function startCase(attrs: Attributes): CaseState {
  const { status } = attrs;
  return {
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
    type: undefined,
    parts: [],
    length: 0,
  };
}

/**
 * Notes a result element of `rank` inside the case. Returns whether it decides the outcome so
 * far (more severe than any before), in which case its `message` and `type` (given only where the
 * details are wanted) replace earlier ones and its text is to be collected afresh.
 */
export function markResult(c: CaseState, rank: number, attrs: Pick<Attributes, 'message' | 'type'>, maxDetails: number): boolean {
  if (rank === 1) c.hasFlaky = true;
  else if (rank === 2) c.hasSkipped = true;
  else if (rank === 3) c.hasFailure = true;
  else c.hasError = true;
  if (rank <= c.rank) return false;
  c.rank = rank;
  c.message = attrs.message ? detach(cut(attrs.message, maxDetails)) : undefined;
  c.type = attrs.type ? detach(cut(attrs.type, maxDetails)) : undefined;
  c.parts = [];
  c.length = 0;
  return true;
}

/** A closed case's outcome, by its most severe result element or its `status`. */
export function caseOutcome(c: CaseState): CaseOutcome {
  return c.rank === 4 ? 'error' : c.rank === 3 ? 'failure' : c.rank === 2 || c.statusSkipped ? 'skipped' : 'success';
}

/** Whether a case passed after failing first (a flaky result element, nothing more severe). */
export function isFlaky(c: CaseState, outcome: CaseOutcome): boolean {
  return outcome === 'success' && c.hasFlaky;
}

/** The `JunitCase` a closed case becomes (`flaky` as `isFlaky` says); `intern` shares the strings many cases repeat. */
export function finishCase(
  c: CaseState,
  outcome: CaseOutcome,
  flaky: boolean,
  suiteName: string,
  maxDetails: number,
  intern: (s: string) => string,
): JunitCase {
  // Message and details only where the deciding element matches the outcome.
  const decided = c.rank >= 2 || flaky;
  const kase: JunitCase = { className: intern(c.className), name: detach(c.name), outcome, time: c.time, flaky, suiteName };
  if (c.file !== undefined) kase.file = detach(cut(c.file, maxDetails));
  const line = c.line !== undefined && /^\s*[1-9][0-9]{0,8}\s*$/.test(c.line) ? Number(c.line) : undefined;
  if (line !== undefined) kase.line = line;
  if (decided && c.message !== undefined) kase.message = c.message;
  if (decided && c.type !== undefined) kase.type = c.type;
  if (decided) {
    const details = c.parts.join('').trimEnd();
    if (details !== '') kase.details = detach(details);
  }
  return kase;
}
