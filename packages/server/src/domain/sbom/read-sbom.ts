/**
 * Reading an attached SBOM (up to 10 MB) without holding the event loop: a small one is read in
 * place, a larger one on a thread of its own, bounded in time and memory, a few at once; past a
 * bound the reading says so (the document is still stored as sent).
 */
import { siblingModule, startModuleWorker } from '../../store/sqlite/threads.ts';
import { type SbomReading, summarizeSbom } from './sbom-summary.ts';

export const sbomBounds = {
  /** Read in place up to this size (a JSON.parse of a few milliseconds). */
  inlineBytes: 256 * 1024,
  /** An XML document in place up to this size: reading XML costs far more per byte than JSON.parse. */
  inlineXmlBytes: 32 * 1024,
  /** How long a thread may take to start and read. */
  readMs: 30_000,
  heapMiB: 256,
  /** Threads reading at once; more SBOMs are refused as busy (503, the CLI retries). */
  threads: 2,
};

/** More large SBOMs are being read than there are threads for. */
export class SbomBusyError extends Error {
  override readonly name = 'SbomBusyError';
}

let reading = 0;

/** Whether the document starts as XML does (after a byte-order mark and white space). */
function looksLikeXml(bytes: Buffer): boolean {
  const start = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return start.startsWith('<');
}

export async function readSbom(bytes: Buffer, bounds = sbomBounds): Promise<SbomReading> {
  if (bytes.length <= (looksLikeXml(bytes) ? bounds.inlineXmlBytes : bounds.inlineBytes)) return summarizeSbom(bytes);
  if (reading >= bounds.threads) throw new SbomBusyError('too many SBOMs are being read: try again shortly');
  reading++;
  try {
    return await onThread(bytes, bounds);
  } finally {
    reading--;
  }
}

function onThread(bytes: Buffer, bounds: typeof sbomBounds): Promise<SbomReading> {
  const copy = new Uint8Array(bytes).buffer;
  const worker = startModuleWorker(siblingModule('sbom-worker', import.meta.url), { bytes: copy }, { maxOldGenerationSizeMb: bounds.heapMiB });
  return new Promise((resolve) => {
    const settle = (answer: SbomReading) => {
      clearTimeout(timer);
      resolve(answer);
      void worker.terminate();
    };
    const timer = setTimeout(() => settle({ read: false, reason: `the document was not read within ${bounds.readMs / 1000} s` }), bounds.readMs);
    worker.once('message', (answer: SbomReading) => settle(answer));
    worker.once('error', (error) => settle({ read: false, reason: `the document could not be read: ${error.message.slice(0, 200)}` }));
    worker.once('exit', () => settle({ read: false, reason: 'the document could not be read' }));
  });
}
