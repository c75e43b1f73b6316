/**
 * PostgreSQL's signal that tokens changed, for remembering tokens as SQLite's servers do
 * (`rememberTokensUntilChange`). Every change to the tokens table notifies a channel when it
 * commits (migration 0010); one connection per server process listens there, and `version()`
 * moves with each notification. While that connection is not listening (starting, lost, or
 * reconnecting), `version()` moves at every call, so nothing is remembered and every request
 * reads its token, as before. Notifications also cannot go missing unseen forever: `version()`
 * moves at least every `maxAgeMs` as well.
 */
import pg from 'pg';
import { tokenChannel } from '../migrations/0010-token-notifications.ts';

export interface TokenChanges {
  /** Moves whenever tokens may have changed since the previous call saw it. */
  version(): number;
  /** Moves `version()` now: this process has just changed a token itself. */
  changed(): void;
  /** Stops listening. */
  close(): Promise<void>;
}

export interface TokenChangeOptions {
  /** Waiting longer for the listening connection counts as not listening (default 3 s). */
  connectionTimeoutMs?: number;
  /** Wait before connecting again after the connection was lost (default 1 s). */
  retryMs?: number;
  /** Longest time anything is remembered, notification or not (default 60 s). */
  maxAgeMs?: number;
  /** How the listening connection shows in `pg_stat_activity` (default `trailproof token listener`). */
  applicationName?: string;
}

/**
 * Listens for token changes on `url`, from the first `version()` call on and in the background
 * (`version()` works at once): a store that never checks a token (`trailproof token create`, a
 * migration, a backup) never opens the connection.
 */
export function listenForTokenChanges(url: string, options: TokenChangeOptions = {}): TokenChanges {
  const { connectionTimeoutMs = 3_000, retryMs = 1_000, maxAgeMs = 60_000, applicationName = 'trailproof token listener' } = options;
  let version = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let started = false;
  const age = setInterval(() => version++, maxAgeMs).unref();

  const lost = (which: pg.Client) => {
    if (client !== which) return;
    client = null;
    listening = false;
    version++;
    void which.end().catch(() => {});
    if (!closed) retry = setTimeout(connect, retryMs).unref();
  };

  async function connect() {
    const current = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectionTimeoutMs, keepAlive: true, application_name: applicationName });
    client = current;
    current.on('notification', () => version++);
    current.on('error', () => lost(current));
    current.on('end', () => lost(current));
    try {
      await current.connect();
      await current.query(`listen ${tokenChannel}`);
      if (client !== current || closed) return void (await current.end().catch(() => {}));
      // Whatever was read before now may predate a change that nobody was listening for.
      version++;
      listening = true;
    } catch {
      lost(current);
    }
  }
  return {
    version() {
      if (!started && !closed) {
        started = true;
        void connect();
      }
      return listening ? version : ++version;
    },
    changed: () => void version++,
    async close() {
      closed = true;
      listening = false;
      clearInterval(age);
      clearTimeout(retry);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
