/**
 * The checkpointer's side (see checkpoint.ts): a connection of its own to the file, which copies
 * committed WAL pages into the database file after each commit it is told of.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from './driver.ts';

const port = parentPort!;
const db = new Database((workerData as { file: string }).file, { fileMustExist: true });
let pending = false;
let running = false;

function run() {
  if (running || !pending) return;
  running = true;
  pending = false;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Retried by the next checkpoint (or the writer's own): nothing to report.
  }
  running = false;
  if (pending) setImmediate(run);
}

port.on('message', (message) => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  pending = true;
  setImmediate(run);
});
