/**
 * What `four-eyes` reads of a pull request attestation, taken from its stored data the same way
 * when a verdict is made and when an auditor re-derives it from the package, so the two cannot
 * read the same record differently.
 */
import type { PullRequestFact } from './policy-evaluate.ts';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** An approver as the CLI sends one: a user name, or `{username, state}` where only APPROVED counts. */
function approverName(approver: unknown): string | undefined {
  if (typeof approver === 'string') return approver || undefined;
  if (!approver || typeof approver !== 'object') return undefined;
  const { username, state } = approver as { username?: unknown; state?: unknown };
  if (state !== undefined && state !== null && String(state).toUpperCase() !== 'APPROVED') return undefined;
  return text(username) || undefined;
}

/** The pull requests of an attestation's `pull_requests` (anything else: none), in their order. */
export function pullRequestFactsOf(pullRequests: unknown): PullRequestFact[] {
  if (!Array.isArray(pullRequests)) return [];
  return pullRequests
    .filter((pr): pr is Record<string, unknown> => pr !== null && typeof pr === 'object')
    .map((pr) => ({
      author: text(pr.author),
      merge_commit: text(pr.merge_commit),
      approvers: (Array.isArray(pr.approvers) ? pr.approvers : []).map(approverName).filter((a): a is string => a !== undefined),
      commits: (Array.isArray(pr.commits) ? pr.commits : [])
        .filter((c): c is Record<string, unknown> => c !== null && typeof c === 'object')
        .map((c) => ({ sha1: text(c.sha1), author: text(c.author_username) || text(c.author) })),
    }));
}
