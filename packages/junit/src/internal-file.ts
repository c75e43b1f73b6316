/**
 * How the JUnit reader gets a file's bytes: a small regular file in one synchronous read, anything
 * else (a big report, a pipe, a device) as a stream.
 *
 * Why synchronous: streaming costs a thread-pool round trip for each of open, every read and
 * close, several times what parsing a typical small report costs; a build
 * with thousands of small `TEST-*.xml` files spent most of its time waiting on them. A read of at
 * most WHOLE_FILE_BYTES blocks the event loop for well under a millisecond, and keeps memory
 * bounded just as streaming does.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';

/** Largest file read whole (in one synchronous read); larger files are streamed. */
export const WHOLE_FILE_BYTES = 1024 * 1024;
/** Bytes read at a time when streaming; also the size of the reused buffer for small files. */
const CHUNK = 64 * 1024;

/** Reused for every file of at most CHUNK bytes (allocating a buffer per file shows in profiles). */
let scratch: Buffer | undefined;

export type FileSource =
  /**
   * The whole file. `bytes` may be a view of a buffer that the next `openFile` call overwrites:
   * decode it before anything else can run (no `await` in between).
   */
  | { kind: 'whole'; bytes: Uint8Array }
  /** The file's bytes as a stream (closes the file at its end); `regular`: a regular file, which can be read again. */
  | { kind: 'stream'; stream: AsyncIterable<Uint8Array>; regular: boolean };

/**
 * Opens `path` and reads it whole if it is a regular file of at most WHOLE_FILE_BYTES; otherwise
 * hands back a stream of it. File-system errors are thrown as they are.
 */
export function openFile(path: string): FileSource {
  const fd = openSync(path, 'r');
  let streaming = false;
  try {
    const stat = fstatSync(fd);
    const { size } = stat;
    if (!stat.isFile() || size > WHOLE_FILE_BYTES) {
      streaming = true;
      return { kind: 'stream', stream: createReadStream(path, { fd, highWaterMark: CHUNK }), regular: stat.isFile() };
    }
    const buffer = size <= CHUNK ? (scratch ??= Buffer.allocUnsafe(CHUNK)) : Buffer.allocUnsafe(size);
    // The size fstat gave, as readFileSync reads it: a file still being written to is read as
    // it was then (a stream would not do better).
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, buffer, filled, size - filled, null);
      if (n === 0) break;
      filled += n;
    }
    return { kind: 'whole', bytes: buffer.subarray(0, filled) };
  } finally {
    if (!streaming) closeSync(fd);
  }
}
