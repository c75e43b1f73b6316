/**
 * The failed cases the trail page shows for its failing JUnit reports: read once per report, on a
 * thread (junit-cases-thread.ts), and kept in the store by the report's address, so that every
 * later view, in any process, reads a row instead of the report. A report viewed before it was
 * kept (an attestation older than the table, or one not viewed yet) is read at its first view.
 */
import type { Store } from '../store/index.ts';
import { type FailedCases, failedCasesReaderVersion, maxReportBytes } from './junit-cases.ts';
import { failedCasesOnThread, type ReadingBounds, readingBounds } from './junit-cases-thread.ts';

/** A failing report on the page: its address and size, as the attestation names them. */
export interface FailingReport {
  sha256: string;
  size: number;
}

/** Reports read at once in this process: each a thread and a core while it reads. */
const threadsAtOnce = 2;
let threadsRunning = 0;
const waitingForThread: Array<() => void> = [];

/** Readings under way, per store, by address: views that come while one runs wait for it. */
const underWay = new WeakMap<Store, Map<string, Promise<FailedCases>>>();

/** The failed cases of each of `reports`, by address. */
export async function failedCasesOfReports(
  store: Store,
  reports: readonly FailingReport[],
  now: number,
  bounds: ReadingBounds = readingBounds,
): Promise<Map<string, FailedCases>> {
  const found = new Map<string, FailedCases>();
  const readable = reports.filter((r) => r.size <= maxReportBytes);
  for (const r of reports) if (r.size > maxReportBytes) found.set(r.sha256, { unreadable: 'The report is over 2 MiB: download it to see every case.' });
  const kept = await store.keptFailedCases([...new Set(readable.map((r) => r.sha256))], failedCasesReaderVersion);
  for (const [sha256, text] of kept) {
    const failed = parsedKept(text);
    if (failed) found.set(sha256, failed);
  }
  const missing = readable.filter((r) => !found.has(r.sha256));
  const readings = await Promise.all(missing.map(async (r) => [r.sha256, await readingOf(store, r.sha256, now, bounds)] as const));
  for (const [sha256, failed] of readings) found.set(sha256, failed);
  return found;
}

/** The reading of one report, shared with any view of this store that asks while it runs. */
function readingOf(store: Store, sha256: string, now: number, bounds: ReadingBounds): Promise<FailedCases> {
  let readings = underWay.get(store);
  if (!readings) underWay.set(store, (readings = new Map()));
  const running = readings.get(sha256);
  if (running) return running;
  const reading = readAndKeep(store, sha256, now, bounds).finally(() => readings.delete(sha256));
  readings.set(sha256, reading);
  return reading;
}

async function readAndKeep(store: Store, sha256: string, now: number, bounds: ReadingBounds): Promise<FailedCases> {
  const blob = await store.getBlob(sha256);
  if (!blob) return { unreadable: 'The report is missing from the store.' };
  await threadFree();
  let read: Awaited<ReturnType<typeof failedCasesOnThread>>;
  try {
    read = await failedCasesOnThread(blob.content, bounds);
  } finally {
    releaseThread();
  }
  if (read.keep) {
    const row = { sha256, readerVersion: failedCasesReaderVersion, failedCases: JSON.stringify(read.failed), at: now };
    // A store that takes no writes now (a standby, a full disk) still gets the page: the next view keeps it.
    await store.keepFailedCases(row).catch(() => undefined);
  }
  return read.failed;
}

const threadFree = (): Promise<void> => {
  if (threadsRunning < threadsAtOnce) {
    threadsRunning++;
    return Promise.resolve();
  }
  return new Promise((resolve) => waitingForThread.push(resolve));
};

/** Hands the thread to the next reading waiting for one, or frees it. */
const releaseThread = () => {
  const next = waitingForThread.shift();
  if (next) next();
  else threadsRunning--;
};

/** A kept reading, or undefined when its text is not one (then the report is read again). */
function parsedKept(text: string): FailedCases | undefined {
  try {
    const value = JSON.parse(text) as FailedCases;
    if ('unreadable' in value ? typeof value.unreadable === 'string' : Array.isArray(value.cases) && typeof value.more === 'number') return value;
  } catch {
    // Not JSON: read the report again, and the row is replaced.
  }
  return undefined;
}
