/** Lookups that every request makes, answered from memory while what they read cannot have changed. */

/** A lookup by name or id (`findOrganization`, `findToken`); undefined when there is none. */
type Find<T> = (key: string) => Promise<T | undefined>;

/**
 * Organisations are never renamed or deleted, so a committed one found by name stays what it is:
 * remembered per store (outside transactions only, where what is read is committed), it costs
 * no query on later requests. Unknown names are always asked again.
 */
export function rememberOrganizations<T>(find: Find<T>): Find<T> {
  const known = new Map<string, T>();
  return async (name) => {
    const remembered = known.get(name);
    if (remembered) return remembered;
    const found = await find(name);
    if (found && known.size < 10_000) known.set(name, found);
    return found;
  };
}

/**
 * Tokens found, remembered until anything that may change them is committed. `version` moves
 * with such commits. On SQLite it is `PRAGMA data_version` of the read connection, which moves
 * whenever another connection commits (this process's writers, or another process's, such as
 * `trailproof token revoke`), read once per turn of the event loop (`oncePerTurn`): a revoked
 * token is refused from the first turn that begins after its COMMIT. On PostgreSQL it moves
 * with the notifications that the tokens table changed
 * (token-changes.ts): a token revoked by another process is refused once the notification has
 * arrived, a moment after the COMMIT. Either way a server that is only read costs no token query
 * per request. Unknown ids are always asked again. At most `max` answers are kept, the oldest
 * dropped first. The console's pages remember their reads the same way (console/page-cache.ts).
 */
export function rememberTokensUntilChange<T>(find: Find<T>, version: () => number, max = 10_000): Find<T> {
  let knownAt = -1;
  const known = new Map<string, T>();
  return async (id) => {
    const at = version();
    if (at !== knownAt) {
      known.clear();
      knownAt = at;
    }
    const remembered = known.get(id);
    if (remembered) return remembered;
    const found = await find(id);
    // Kept only if nothing was committed while it was read (else it may already be out of date).
    if (found && version() === at) {
      if (known.size >= max) known.delete(known.keys().next().value!);
      known.set(id, found);
    }
    return found;
  };
}

/**
 * `read`'s answer, read at most once per turn of the event loop (again after the turn's
 * immediates have run). For SQLite's `PRAGMA data_version`, which every authenticated request
 * asks: each read opens a read transaction, with the file-lock system calls that takes, a cost
 * the light lists feel. A request handled in the turn in which a COMMIT lands
 * may not see it, as one whose check ran a moment before the COMMIT would not; every request in a
 * later turn does.
 */
export function oncePerTurn<T>(read: () => T): () => T {
  let answer: T;
  let fresh = false;
  return () => {
    if (!fresh) {
      answer = read();
      fresh = true;
      setImmediate(() => {
        fresh = false;
      });
    }
    return answer;
  };
}
