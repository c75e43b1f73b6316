/** String helpers of the JUnit reader that keep memory bounded. */

/**
 * A copy of `s` that does not share memory with the (possibly huge) string it was sliced from:
 * V8 keeps the parent of a sliced string alive, so kept strings must not be slices of a chunk.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** At most `max` UTF-16 units of `s`, not ending in half a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
