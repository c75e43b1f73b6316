/**
 * Where the results come from: the commit, the repository and the CI run, from the GitHub
 * event payload and the checkout, or from `git` and `TRAILPROOF_*` variables outside GitHub.
 * Which field comes from where is listed in the package README ("Commit and repository").
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { limits, type GitCommitInfo, type RepoInfo } from '@trailproof/schema';

export type { GitCommitInfo, RepoInfo };

export interface RunContext {
  commit: GitCommitInfo | null;
  repo: RepoInfo | null;
  originUrl?: string;
  /** Directory the globs are relative to. */
  workspace: string;
}

/** What the runner tells about the run: its GITHUB_* variables and the event payload. */
export interface GitHubContext {
  sha: string;
  ref: string;
  eventName: string;
  serverUrl: string;
  runId: number;
  repo: { owner: string; repo: string };
  payload: Record<string, any>;
}

/**
 * The run's context as the runner gives it: GITHUB_* variables and the event payload at
 * GITHUB_EVENT_PATH (read directly: `@actions/github` would bundle all of Octokit for this).
 */
export function gitHubContext(env: NodeJS.ProcessEnv): GitHubContext {
  let payload: Record<string, any> = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as Record<string, any>;
    } catch (error) {
      throw new Error(`Cannot read the event payload GITHUB_EVENT_PATH=${env.GITHUB_EVENT_PATH}: ${(error as Error).message}`);
    }
  }
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? payload.repository?.full_name ?? '/').split('/');
  return {
    sha: env.GITHUB_SHA ?? '',
    ref: env.GITHUB_REF ?? '',
    eventName: env.GITHUB_EVENT_NAME ?? '',
    serverUrl: (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    runId: Number(env.GITHUB_RUN_ID) || 0,
    repo: { owner, repo },
    payload,
  };
}

const clip = (text: string | undefined | null, max: number) => (typeof text === 'string' ? text.slice(0, max) : undefined);
const epoch = (iso: unknown) => (typeof iso === 'string' && !Number.isNaN(Date.parse(iso)) ? Date.parse(iso) / 1000 : undefined);
const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null && v !== '')) as T;

const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });

/**
 * Whether `sha` is a boundary of a shallow clone (actions/checkout fetches one commit by
 * default): git then shows it without parents, which says nothing about its real parents.
 */
function isShallowBoundary(sha: string, cwd: string): boolean {
  try {
    const shallow = resolve(cwd, git(['rev-parse', '--git-path', 'shallow'], cwd).trim());
    return readFileSync(shallow, 'utf8').split('\n').includes(sha);
  } catch {
    return false; // no shallow file: the history is complete
  }
}

/**
 * Commit details from the local clone, when it has the commit. `parents` only where git knows
 * them: not for the boundary commit of a shallow clone.
 */
export function gitLog(sha: string, cwd: string): Partial<GitCommitInfo> {
  try {
    const out = git(['log', '-1', '--format=%H%x00%an <%ae>%x00%ct%x00%P%x00%B', sha], cwd);
    const [full, author, time, parents, ...message] = out.split('\0');
    const id = full?.trim();
    if (!id) return {};
    return defined({
      sha1: id,
      author: clip(author, limits.shortText),
      timestamp: Number(time) || undefined,
      parents: isShallowBoundary(id, cwd) ? undefined : parents!.trim().split(' ').filter(Boolean),
      message: clip(message.join('\0').trim(), limits.text),
    });
  } catch {
    return {};
  }
}

const noCommit = /^0+$/;

/**
 * The parent of `sha` where a push payload truly says it: the push added exactly that one
 * commit on top of `before` (not a new branch, not a forced push). Otherwise unknown.
 */
function parentsFromPush(payload: Record<string, any>, sha: string): string[] | undefined {
  const commits = payload.commits as Array<Record<string, any>> | undefined;
  const before = payload.before as unknown;
  if (!Array.isArray(commits) || commits.length !== 1 || commits[0]?.id !== sha) return undefined;
  if (typeof before !== 'string' || !/^[0-9a-f]{40,64}$/.test(before) || noCommit.test(before) || payload.forced === true) return undefined;
  return [before];
}

/** The run as GitHub describes it: push, pull_request and any other event. */
export function fromGitHub(context: GitHubContext, workspace: string): RunContext {
  const { payload } = context;
  const pr = payload.pull_request as Record<string, any> | undefined;
  const repoName = `${context.repo.owner}/${context.repo.repo}`;
  const repoUrl = `${context.serverUrl}/${repoName}`;
  // workflow_run (attesting a fork's pull request from the base repository): the run that finished is about its head commit.
  const finished = context.eventName === 'workflow_run' ? (payload.workflow_run as Record<string, any> | undefined) : undefined;
  const sha: string = pr?.head?.sha ?? finished?.head_sha ?? context.sha;
  // Only push and workflow_run payloads describe the commit (head_commit); a pull_request payload
  // names who opened the PR, who need not be the author of its head commit, so it gives no author.
  const head = (payload.head_commit ?? finished?.head_commit) as Record<string, any> | undefined;
  const fromPayload: Partial<GitCommitInfo> =
    head && head.id === sha
      ? {
          message: clip(head.message, limits.text),
          timestamp: epoch(head.timestamp),
          author: head.author ? clip(`${head.author.name} <${head.author.email}>`, limits.shortText) : undefined,
          author_username: clip(head.author?.username, limits.shortText),
        }
      : {};
  const branch = pr
    ? clip(pr.head?.ref, limits.shortText)
    : finished
      ? clip(finished.head_branch, limits.shortText)
      : context.ref.startsWith('refs/heads/')
        ? context.ref.slice('refs/heads/'.length)
        : undefined;
  const local = gitLog(sha, workspace);
  return {
    commit: defined({
      ...local,
      ...defined(fromPayload),
      sha1: sha,
      branch,
      url: `${repoUrl}/commit/${sha}`,
      parents: local.parents ?? (context.eventName === 'push' ? parentsFromPush(payload, sha) : undefined),
    }) as GitCommitInfo,
    repo: defined({
      name: repoName,
      url: repoUrl,
      id: payload.repository?.id !== undefined ? String(payload.repository.id) : undefined,
      description: clip(payload.repository?.description, limits.text),
      provider: 'github' as const,
    }),
    originUrl: `${context.serverUrl}/${repoName}/actions/runs/${context.runId}`,
    workspace,
  };
}

/** The `origin` remote's URL, without credentials, when there is one. */
function gitRemote(cwd: string): string | undefined {
  try {
    const url = git(['remote', 'get-url', 'origin'], cwd).trim();
    return url.replace(/\/\/[^@/]+@/, '//') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The run outside GitHub: the commit from `git` in `workspace` (or TRAILPROOF_COMMIT), the
 * repository from TRAILPROOF_REPO_NAME / TRAILPROOF_REPO_URL, the run from TRAILPROOF_ORIGIN_URL.
 */
export function fromEnvironment(env: NodeJS.ProcessEnv, workspace: string): RunContext {
  const sha = env.TRAILPROOF_COMMIT ?? gitLog('HEAD', workspace).sha1;
  let branch = env.TRAILPROOF_BRANCH;
  if (!branch) {
    try {
      branch = git(['rev-parse', '--abbrev-ref', 'HEAD'], workspace).trim();
      if (branch === 'HEAD') branch = undefined;
    } catch {
      branch = undefined;
    }
  }
  const repoName = env.TRAILPROOF_REPO_NAME;
  const repoUrl = env.TRAILPROOF_REPO_URL ?? gitRemote(workspace) ?? '';
  return {
    commit: sha ? (defined({ ...gitLog(sha, workspace), sha1: sha, branch }) as GitCommitInfo) : null,
    repo: repoName ? { name: repoName, url: repoUrl } : null,
    ...(env.TRAILPROOF_ORIGIN_URL ? { originUrl: env.TRAILPROOF_ORIGIN_URL } : {}),
    workspace,
  };
}
