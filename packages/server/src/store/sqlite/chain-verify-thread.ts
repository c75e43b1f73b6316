/**
 * SQLite's verification off the event loop: better-sqlite3 runs a statement on the thread that
 * calls it, and verifying reads every record and hashes every attachment (about 2.6 GB held the
 * server's only thread for 9 to 16 s). A thread of its own per verification, started for it and
 * ended after: verifications are rare, and the reader threads stay free for the lists.
 */
import type { FromVerifier } from './chain-verify-worker.ts';
import type { VerifyResult } from '../queries/chain-verify.ts';
import { fromErrorShape, siblingModule, startModuleWorker } from './threads.ts';

/** Verifies `organizationId`'s chain in the SQLite `file` on a thread of its own. */
export function verifyChainOnThread(file: string, organizationId: number, orgName: string): Promise<VerifyResult> {
  return new Promise((resolve, reject) => {
    const worker = startModuleWorker(siblingModule('chain-verify-worker', import.meta.url), { file, organizationId, orgName });
    let answered = false;
    worker.once('message', (message: FromVerifier) => {
      answered = true;
      if (message.kind === 'done') resolve(message.result);
      else reject(fromErrorShape(message.error));
    });
    worker.once('error', (error) => {
      answered = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the verification thread stopped (exit code ${code}) before it answered`));
    });
  });
}
