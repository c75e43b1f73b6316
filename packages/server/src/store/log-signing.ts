/**
 * The key that signs the log's checkpoints and the log's origin. One Ed25519 key per server (a
 * note key named after the origin's host part); each organisation's log is `ORIGIN/ORG`. The key
 * is made at first start and kept in the database, unless one is given (TRAILPROOF_SIGNING_KEY or
 * a key file); the origin is the host name at first start, kept too, unless one is given
 * (TRAILPROOF_LOG_ORIGIN), so that a server moved to another host keeps signing the same log.
 */
import { hostname } from 'node:os';
import type { Db } from './database.ts';
import { generateNoteKey, isValidKeyName, parseSignerKey, type NoteSigner } from '../transparency/index.ts';

export interface LogSigningOptions {
  /** A note-format signer key (`PRIVATE+KEY+name+hash+base64`); the stored one by default. */
  signerKey?: string;
  /** The host part of every organisation's origin; the stored one (first start: the host name) by default. */
  origin?: string;
}

export interface LogSigning {
  signer: NoteSigner;
  /** The host part of the origins: organisation `acme` signs as `${origin}/acme`. */
  origin: string;
}

/** The origin of an organisation's log. */
export const originOf = (signing: Pick<LogSigning, 'origin'>, org: string) => `${signing.origin}/${org}`;

/** Throws a RangeError unless `origin` can name a log (and a key): one line, no spaces, no '+'. */
export function checkOrigin(origin: string): string {
  if (!isValidKeyName(origin) || origin.endsWith('/'))
    throw new RangeError(`a log origin is text without spaces or '+', as trailproof.example.com, not ${JSON.stringify(origin)}`);
  return origin;
}

/**
 * The signer and origin to use, making and keeping them on first start. Two processes starting
 * together on one database keep the first one's (the row is inserted once).
 */
export async function loadLogSigning(db: Db, options: LogSigningOptions = {}, now = Date.now() / 1000): Promise<LogSigning> {
  const given = options.signerKey === undefined ? undefined : parseSignerKey(options.signerKey.trim());
  let row = await stored(db);
  if (!row) {
    const origin = checkOrigin(options.origin ?? hostname());
    await db
      .insertInto('log_signing')
      .values({ id: 1, origin, signer_key: given ? null : generateNoteKey(origin).signerKey, created_at: now })
      .onConflict((c) => c.column('id').doNothing())
      .execute();
    row = (await stored(db))!;
  }
  if (!given && row.signer_key === null) {
    // Made without a key of its own (one was given then), now started without one.
    await db
      .updateTable('log_signing')
      .set({ signer_key: generateNoteKey(row.origin).signerKey })
      .where('id', '=', 1)
      .where('signer_key', 'is', null)
      .execute();
    row = (await stored(db))!;
  }
  return { signer: given ?? parseSignerKey(row.signer_key!), origin: options.origin === undefined ? row.origin : checkOrigin(options.origin) };
}

const stored = (db: Db) => db.selectFrom('log_signing').select(['origin', 'signer_key']).where('id', '=', 1).executeTakeFirst();
