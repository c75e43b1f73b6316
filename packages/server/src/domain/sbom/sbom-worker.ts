/** The thread a large SBOM is read on (read-sbom.ts): one document, one answer, then it ends. */
import { parentPort, workerData } from 'node:worker_threads';
import { summarizeSbom } from './sbom-summary.ts';

parentPort!.postMessage(summarizeSbom(new Uint8Array(workerData.bytes as ArrayBuffer)));
