/**
 * @trailproof/action as a library: the attest flow the Action and the CLI run, its client and
 * inputs. The JUnit reader is `@trailproof/junit`.
 */
export { AttestError, attestJunitResults, junitResults, maxListedFailures, type AttestResult, type Reporter } from './attest-flow.ts';
export { buildAttachment, maxUploadBytes, type AttachmentResult } from './attachment.ts';
export { findJunitFiles, patternLines } from './find-files.ts';
export { createClient, ApiRequestError, type ApiClient, type ClientOptions } from './client.ts';
export { readInputs, InputError, defaultJunitPaths, type AttestConfig } from './inputs.ts';
export { fromEnvironment, fromGitHub, gitHubContext, type GitHubContext, type RunContext, type GitCommitInfo, type RepoInfo } from './git-context.ts';
export { summaryMarkdown, type SummaryInput } from './summary.ts';
export { annotationsFor, annotationsPerStep, caseTitle, type Annotation } from './annotations.ts';
export { RerunMerger, type MergedResults } from './reruns.ts';
