/** The messages between the judge's thread (judge-worker.ts) and the main thread (judge-thread.ts). */

/**
 * `check`: does the type's schema and does each rule compile; `judge`: the data against a version,
 * all rules in one run of jq unless `each` (one run per rule, to tell which one hit a bound).
 */
export type JudgeJob =
  | { kind: 'check'; schema: string | null; rules: string[] }
  | { kind: 'judge'; schema: string | null; rules: string[]; data: string; each?: boolean };
export type ToJudge = JudgeJob & { id: number };

export interface RuleResult {
  passed: boolean;
  output: string | null;
  error: string | null;
}

export type FromJudge =
  | { kind: 'ready' }
  | { kind: 'rule'; id: number; index: number }
  | { kind: 'together'; id: number }
  | { kind: 'validated'; id: number; schemaErrors: string[] }
  | { kind: 'ruled'; id: number; index: number; result: RuleResult }
  | { kind: 'checked'; id: number; problems: string[] }
  | { kind: 'judged'; id: number; schemaErrors: string[]; rules: RuleResult[] }
  | { kind: 'failed'; id: number; message: string };
