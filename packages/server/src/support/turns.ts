/**
 * Letting the event loop run in the middle of a long piece of work. A report of 5,000 artifacts
 * is parsed, validated, grouped and written in a few hundred milliseconds of JavaScript with no
 * I/O wait between them on SQLite (its statements are synchronous): in one stretch, health probes
 * and every other request waited for all of it (1.5 s on a loaded machine, issue 47).
 */

/** Resolves on the next turn of the event loop, after the I/O and timers that are due. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `work` on each chunk in turn, letting the event loop run between chunks. */
export async function eachChunkInTurn<T>(chunks: readonly T[][], work: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (const [i, chunk] of chunks.entries()) {
    if (i > 0) await nextTurn();
    await work(chunk);
  }
}
