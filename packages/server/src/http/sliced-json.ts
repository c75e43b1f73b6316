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
    const items: string[] = [];
    for (const item of member as unknown[]) {
      items.push(JSON.stringify(item) ?? 'null');
      await new Promise((resolve) => setImmediate(resolve));
    }
    parts.push(`${JSON.stringify(name)}:[${items.join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}
