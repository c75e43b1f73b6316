/**
 * A JUnit report's thread (see junit-cases-thread.ts): says it has started reading, so that the
 * time bound counts the reading and not the thread's start, reads the report, posts what it found.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type FailedCases, failedCasesOf } from './junit-cases.ts';

export type FromReportReader = { kind: 'reading' } | { kind: 'read'; failed: FailedCases };

const port = parentPort!;
const post = (message: FromReportReader) => port.postMessage(message);
post({ kind: 'reading' });
post({ kind: 'read', failed: await failedCasesOf((workerData as { report: Uint8Array }).report) });
