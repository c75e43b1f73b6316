/** The transparency log's settings from the environment, and `trailproof key show`. */
import { readFileSync } from 'node:fs';
import { commandGroup, databaseEnvironment, databaseFlags, databaseOptions, defineCommand, UsageError, withStore } from './common.ts';
import { checkOrigin } from '../store/log-signing.ts';
import type { LogOptions } from '../store/index.ts';
import { parseSignerKey, VerificationError } from '../transparency/index.ts';

/** The environment variables of the log, as `--help` lists them. */
export const logEnvironment = [
  [
    'TRAILPROOF_SIGNING_KEY',
    'the key that signs checkpoints, a note signer key PRIVATE+KEY+name+hash+base64 (default: one made at first start and kept in the database)',
  ],
  ['TRAILPROOF_SIGNING_KEY_FILE', 'as TRAILPROOF_SIGNING_KEY, read from this file'],
  ['TRAILPROOF_LOG_ORIGIN', "the logs' origin: organisation ORG's log is ORIGIN/ORG (default: the host name at first start, kept in the database)"],
  ['TRAILPROOF_CHECKPOINT_INTERVAL_MS', 'at most one checkpoint per organisation per this many milliseconds (default 1000)'],
] as const;

/** The log's settings from the environment; a UsageError naming the variable at fault. */
export function logOptionsFromEnvironment(env: NodeJS.ProcessEnv = process.env): LogOptions {
  const options: { signerKey?: string; origin?: string; checkpointIntervalMs?: number } = {};
  if (env.TRAILPROOF_SIGNING_KEY && env.TRAILPROOF_SIGNING_KEY_FILE)
    throw new UsageError('give TRAILPROOF_SIGNING_KEY or TRAILPROOF_SIGNING_KEY_FILE, not both');
  const [source, key] = env.TRAILPROOF_SIGNING_KEY_FILE
    ? ['TRAILPROOF_SIGNING_KEY_FILE', readKeyFile(env.TRAILPROOF_SIGNING_KEY_FILE)]
    : ['TRAILPROOF_SIGNING_KEY', env.TRAILPROOF_SIGNING_KEY];
  if (key) {
    try {
      parseSignerKey(key.trim());
    } catch (error) {
      if (!(error instanceof VerificationError)) throw error;
      throw new UsageError(`${source} must be a note signer key (PRIVATE+KEY+name+hash+base64, as from a Go note.GenerateKey): ${error.message}`);
    }
    options.signerKey = key.trim();
  }
  if (env.TRAILPROOF_LOG_ORIGIN) {
    try {
      options.origin = checkOrigin(env.TRAILPROOF_LOG_ORIGIN);
    } catch (error) {
      throw new UsageError(`TRAILPROOF_LOG_ORIGIN: ${(error as Error).message}`);
    }
  }
  const interval = env.TRAILPROOF_CHECKPOINT_INTERVAL_MS;
  if (interval !== undefined && interval !== '') {
    const value = Number(interval);
    if (!Number.isInteger(value) || value < 0 || value > 86_400_000)
      throw new UsageError(`TRAILPROOF_CHECKPOINT_INTERVAL_MS must be a whole number from 0 to 86400000, not '${interval}'`);
    options.checkpointIntervalMs = value;
  }
  return options;
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`TRAILPROOF_SIGNING_KEY_FILE: cannot read ${file}: ${(error as Error).message}`);
  }
}

const keyShow = defineCommand({
  name: 'key show',
  synopsis: '[--db FILE | --database URL]',
  summary: [
    "Prints the verifier key of the server's checkpoints in the note format (name+hash+base64): give it to",
    'auditors, who check checkpoints, proofs and audit packages with it. The key given by TRAILPROOF_SIGNING_KEY',
    '(or its file) when set; otherwise the one kept in the database, made now if there is none yet.',
  ].join('\n'),
  options: databaseOptions,
  flags: databaseFlags,
  environment: [...databaseEnvironment, ...logEnvironment.slice(0, 3)],
  async run({ values }) {
    const log = logOptionsFromEnvironment();
    if (log.signerKey) {
      process.stdout.write(`${parseSignerKey(log.signerKey).verifierKey}\n`);
      return;
    }
    await withStore(
      values,
      async (store) => {
        process.stdout.write(`${store.logSigning!.signer.verifierKey}\n`);
      },
      { log },
    );
  },
});

/** `trailproof key show`. */
export const key = commandGroup('key', "The key that signs the transparency log's checkpoints.", [keyShow]);
