/**
 * A verification's thread (see chain-verify-thread.ts): a read-only connection of its own, one
 * organisation's chain verified on it, the result posted back, and the thread ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { verifyChain, type VerifyResult } from '../queries/chain-verify.ts';
import { openSqliteReader } from './open.ts';
import { toErrorShape, type ErrorShape } from './threads.ts';

export type FromVerifier = { kind: 'done'; result: VerifyResult } | { kind: 'failed'; error: ErrorShape };

const { file, organizationId, orgName } = workerData as { file: string; organizationId: number; orgName: string };
const port = parentPort!;
const post = (message: FromVerifier) => port.postMessage(message);

try {
  const { db } = openSqliteReader(file);
  await verifyChain(db, organizationId, orgName)
    .then(
      (result) => post({ kind: 'done', result }),
      (error) => post({ kind: 'failed', error: toErrorShape(error) }),
    )
    .finally(() => db.destroy());
} catch (error) {
  post({ kind: 'failed', error: toErrorShape(error) });
}
