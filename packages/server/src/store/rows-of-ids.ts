/**
 * A page's rows read a few at a time: pages whose rows carry client-sized JSON (100 artifacts at
 * the contract's bounds are 24 MB, 100 trails 100 MB) were read and parsed in one step, one
 * statement (better-sqlite3's `all()`) and one loop of JSON.parse, while every other request waited.
 */

/** The rows of `ids`, in that order, `perRead` a statement, each made into a value, with a turn of the event loop between two statements. */
export async function rowsOfIds<R extends { id: number | string }, T>(
  ids: readonly number[],
  perRead: number,
  read: (chunk: number[]) => Promise<R[]>,
  convert: (row: R) => T,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += perRead) {
    const chunk = ids.slice(i, i + perRead);
    const byId = new Map((await read(chunk)).map((r) => [Number(r.id), r]));
    for (const id of chunk) {
      const row = byId.get(id);
      if (row) out.push(convert(row));
    }
    // After the last statement the caller goes on at once: a turn waited there delays the answer behind every other request, and protects none.
    if (i + perRead < ids.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}
