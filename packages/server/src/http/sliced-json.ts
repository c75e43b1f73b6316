/**
 * JSON text of an answer whose one list of big items is written an item per turn of the event
 * loop: a page of 20 attestations of 1 MB each stringified at once held every other request,
 * health checks included, for the whole page.
 */
import { Readable } from 'node:stream';

/** `JSON.stringify(value)`, the items of `value[key]` (an array) one per turn of the event loop. */
export async function jsonInSlices(value: Record<string, unknown>, key: string): Promise<string> {
  const parts: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    if (name !== key) {
      const text = JSON.stringify(member);
      if (text !== undefined) parts.push(`${JSON.stringify(name)}:${text}`);
      continue;
    }
    parts.push(`${JSON.stringify(name)}:${await jsonArrayInSlices(member as unknown[])}`);
  }
  return `{${parts.join(',')}}`;
}

/** `JSON.stringify(items)`, an item per turn of the event loop (a page of 100 artifacts at their bounds is 24 MB). */
async function jsonArrayInSlices(items: readonly unknown[]): Promise<string> {
  const texts: string[] = [];
  for (const item of items) {
    texts.push(JSON.stringify(item) ?? 'null');
    await new Promise((resolve) => setImmediate(resolve));
  }
  return `[${texts.join(',')}]`;
}

/**
 * The JSON text of `value` (an array, or an object whose list of big items is `value[key]`) as a
 * stream, an item a chunk and a turn of the event loop: a page of 50 MB is then never one string,
 * encoded and written at once, and is sent as the client reads it.
 */
export function jsonStreamInSlices(value: readonly unknown[] | Record<string, unknown>, key?: string): Readable {
  async function* pieces(): AsyncGenerator<string> {
    const items = function* (list: readonly unknown[]) {
      for (let i = 0; i < list.length; i++) yield `${i ? ',' : ''}${JSON.stringify(list[i]) ?? 'null'}`;
    };
    const list = Array.isArray(value) ? value : undefined;
    if (list) {
      yield '[';
      for (const piece of items(list)) {
        yield piece;
        await new Promise((resolve) => setImmediate(resolve));
      }
      yield ']';
      return;
    }
    let first = true;
    yield '{';
    for (const [name, member] of Object.entries(value)) {
      const head = `${first ? '' : ','}${JSON.stringify(name)}:`;
      if (name !== key) {
        const text = JSON.stringify(member);
        if (text === undefined) continue;
        yield head + text;
      } else {
        yield `${head}[`;
        for (const piece of items(member as unknown[])) {
          yield piece;
          await new Promise((resolve) => setImmediate(resolve));
        }
        yield ']';
      }
      first = false;
    }
    yield '}';
  }
  return Readable.from(pieces(), { objectMode: false });
}
