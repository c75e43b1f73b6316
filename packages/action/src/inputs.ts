/**
 * The action's inputs, read once into one typed, validated object. The same reader serves the
 * GitHub Action (`core.getInput`) and the command line (flags or `TRAILPROOF_*` env).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AttestationNamePattern, limits, NamePattern, Sha256Pattern } from '@trailproof/schema';
import { patternLines } from './find-files.ts';

export interface AttestConfig {
  serverUrl: string;
  /** '' only with `onMissingToken: 'warn'`: then the results are read and summarised, not attested. */
  apiToken: string;
  org: string;
  flow: string;
  /** Trail name; the commit SHA when not given. */
  trail: string;
  /** Glob patterns (comments and blank lines dropped); `!` excludes; a directory means the XML files below it. */
  junitPaths: string[];
  attestationName: string;
  /** As given (relative to the workspace); checked to be a file of at most 10MB. */
  templateFile?: string;
  artifactFingerprint?: string;
  description?: string;
  failOnFailure: boolean;
  requireTests: boolean;
  uploadResults: boolean;
  /** Failed or errored cases annotated (GitHub Action only); 0 turns annotations off. */
  annotations: number;
  /** 'merge': repetitions of a case (same suite, class name and name) count once, by their last outcome. */
  reruns: 'separate' | 'merge';
  /** 'failures': written only when something failed, listing only the suites with failures. */
  jobSummary: 'all' | 'failures' | 'off';
  /** What an empty `api-token` does: fail the step, or warn and only read and summarise. */
  onMissingToken: 'fail' | 'warn';
}

/** GitHub shows at most 50 error annotations per job (10 per step). */
export const maxAnnotations = 50;

/** An input that does not validate; the message names it. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`Input '${input}' ${message}`);
  }
}

/** The default `junit-paths`: where the common runners write their reports. */
export const defaultJunitPaths = [
  '**/TEST-*.xml',
  '**/junit*.xml',
  '**/*-junit.xml',
  '**/*.junit.xml',
  '**/test-results/**/*.xml',
  '**/test-reports/**/*.xml',
  '**/surefire-reports/*.xml',
  '**/failsafe-reports/TEST-*.xml',
  '!**/node_modules/**',
];

// The contract's own patterns and limits, so the action never sends what the server refuses.
const namePattern = new RegExp(NamePattern);
const attestationNamePattern = new RegExp(AttestationNamePattern);

/**
 * Reads every input through `get` (which returns '' for an absent input) and validates it.
 * `defaultTrail` is the commit SHA (GITHUB_SHA, or `git rev-parse HEAD` for the CLI);
 * `workspace` is the directory relative paths start from.
 */
export function readInputs(get: (name: string) => string, context: { defaultTrail: string | undefined; workspace: string }): AttestConfig {
  const text = (name: string) => get(name).trim();
  const required = (name: string) => {
    const value = text(name);
    if (!value) throw new InputError(name, 'is required');
    return value;
  };
  const boolean = (name: string, fallback: boolean) => {
    const value = text(name).toLowerCase();
    if (!value) return fallback;
    if (['true', 'yes', '1', 'on'].includes(value)) return true;
    if (['false', 'no', '0', 'off'].includes(value)) return false;
    throw new InputError(name, `must be true or false, not '${text(name)}'`);
  };
  const oneOf = <T extends string>(name: string, values: readonly T[]): T => {
    const value = text(name).toLowerCase() || values[0]!;
    if (!(values as readonly string[]).includes(value)) throw new InputError(name, `must be ${values.join(' or ')}, not '${text(name)}'`);
    return value as T;
  };
  const named = (name: string, value: string, pattern = namePattern) => {
    if (!pattern.test(value) || value.length > limits.name) {
      throw new InputError(name, `'${value}' may hold only letters, digits, '.', '_', '~' and '-' (at most ${limits.name})`);
    }
    return value;
  };

  const onMissingToken = oneOf('on-missing-token', ['fail', 'warn'] as const);
  // Without a token (a pull request from a fork gets no secrets) nothing is sent: where to send it may be missing too.
  const unattested = onMissingToken === 'warn' && !text('api-token');
  const needed = (name: string) => (unattested ? text(name) || '-' : required(name));
  const annotations = text('annotations') || '10';
  if (!/^\d{1,3}$/.test(annotations) || Number(annotations) > maxAnnotations) {
    throw new InputError(
      'annotations',
      `must be a whole number from 0 to ${maxAnnotations} (GitHub shows at most ${maxAnnotations} per job), not '${text('annotations')}'`,
    );
  }

  const serverUrl = (unattested ? text('server-url') || 'http://unattested.invalid' : required('server-url')).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(serverUrl);
  } catch {
    throw new InputError('server-url', `must be an http(s) URL, not '${serverUrl}'`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new InputError('server-url', `must be an http(s) URL, not '${serverUrl}'`);

  const trail = text('trail') || context.defaultTrail || (unattested ? '-' : undefined);
  if (!trail) throw new InputError('trail', 'is required when the commit SHA is unknown');

  const junitPaths = patternLines(get('junit-paths'));
  const templateFile = text('template-file') || undefined;
  if (templateFile !== undefined) checkFile('template-file', templateFile, context.workspace);
  const artifactFingerprint = text('artifact-fingerprint') || undefined;
  if (artifactFingerprint !== undefined && !new RegExp(Sha256Pattern).test(artifactFingerprint)) {
    throw new InputError('artifact-fingerprint', 'must be a SHA-256 digest: 64 lower-case hex characters');
  }
  const description = text('description') || undefined;
  if (description !== undefined && description.length > limits.text) throw new InputError('description', `must be at most ${limits.text} characters`);

  return {
    serverUrl,
    apiToken: unattested ? '' : required('api-token'),
    org: named('org', needed('org')),
    flow: named('flow', needed('flow')),
    trail: named('trail', trail),
    junitPaths: junitPaths.length ? junitPaths : defaultJunitPaths,
    attestationName: named('attestation-name', text('attestation-name') || 'junit', attestationNamePattern),
    ...(templateFile ? { templateFile } : {}),
    ...(artifactFingerprint ? { artifactFingerprint } : {}),
    ...(description ? { description } : {}),
    failOnFailure: boolean('fail-on-failure', true),
    requireTests: boolean('require-tests', true),
    uploadResults: boolean('upload-results', true),
    annotations: Number(annotations),
    reruns: oneOf('reruns', ['separate', 'merge'] as const),
    jobSummary: oneOf('job-summary', ['all', 'failures', 'off'] as const),
    onMissingToken,
  };
}

/** An input naming a file to upload: it must be a readable file within the server's 10MB limit. */
function checkFile(name: string, given: string, workspace: string): void {
  const path = resolve(workspace, given);
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(name, code === 'ENOENT' ? `names no file: '${given}' (${path})` : `'${given}' cannot be read: ${code ?? (error as Error).message}`);
  }
  if (!stats.isFile()) throw new InputError(name, `must name a file; '${given}' (${path}) is not one`);
  if (stats.size > limits.fileBytes) throw new InputError(name, `'${given}' is ${stats.size} bytes, over the 10MB (${limits.fileBytes} bytes) limit`);
}
