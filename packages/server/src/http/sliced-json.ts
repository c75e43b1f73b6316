/**
 * JSON text of an answer whose one list of big items is written an item per turn of the event
 * loop: a page of 20 attestations of 1 MB each stringified at once held every other request,
 * health checks included, for the whole page.
 */

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
export async function jsonArrayInSlices(items: readonly unknown[]): Promise<string> {
  const texts: string[] = [];
  for (const item of items) {
    texts.push(JSON.stringify(item) ?? 'null');
    await new Promise((resolve) => setImmediate(resolve));
  }
  return `[${texts.join(',')}]`;
}
