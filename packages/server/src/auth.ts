/**
 * Bearer tokens: `tp_<id>_<secret>`. Only the SHA-256 of the secret is stored; the id finds the
 * row and the hashes are compared in constant time. A token belongs to one organisation, is
 * read-only or read-write, and may expire.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from './http/errors.ts';
import type { Store } from './store/types.ts';

/** Who is calling: the organisation the token belongs to and what it may do. */
export interface Principal {
  tokenId: string;
  org: string;
  readOnly: boolean;
}

/** Decides who a request's `Authorization` header belongs to; null when nobody. */
export interface Authenticator {
  authenticate(authorization: string | undefined): Promise<Principal | null>;
}

const tokenPattern = /^tp_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

// One-shot: a third of a Hash object's cost, which every authenticated request paid.
const sha256 = (text: string) => hash('sha256', text, 'buffer');

/** Tokens stored in the store: the default authenticator. */
export function storeTokens(store: Pick<Store, 'findToken'>): Authenticator {
  return {
    async authenticate(authorization) {
      const presented = presentedToken(authorization);
      const parts = presented === undefined ? null : tokenPattern.exec(presented);
      if (!parts) return null;
      const row = await store.findToken(parts[1]!);
      // Compare even when there is no row, so that unknown and wrong tokens take the same time.
      const expected = row ? Buffer.from(row.secretSha256, 'hex') : Buffer.alloc(32);
      const same = timingSafeEqual(sha256(parts[2]!), expected);
      if (!row || !same || row.revokedAt !== null) return null;
      // Only the holder of the whole token learns that it expired: tells a CI job why it stopped working.
      if (row.expiresAt !== null && row.expiresAt <= Date.now() / 1000) throw tokenExpired(row.expiresAt);
      return { tokenId: row.id, org: row.organization, readOnly: row.readOnly };
    },
  };
}

/**
 * The token of an `Authorization` header: `Bearer <token>`, or `Basic` with the token as the
 * password (any user name), which is how older Kosli CLI releases send it for several commands
 * (`RequestParams.Password`, internal/requests).
 */
function presentedToken(authorization: string | undefined): string | undefined {
  const bearer = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '');
  if (bearer) return bearer[1];
  const basic = /^Basic +([A-Za-z0-9+/]{1,400}={0,2})\s*$/i.exec(authorization ?? '');
  if (!basic) return undefined;
  const pair = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  return colon < 0 ? undefined : pair.slice(colon + 1);
}

const tokenExpired = (at: number) =>
  new ApiError(401, `The token expired at ${new Date(at * 1000).toISOString()}: create a new one`, undefined, {
    'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The token has expired"',
  });

/**
 * Creates a token for an organisation (created if new) and returns it; it is shown only this
 * once. `expiresAt` (Unix seconds, in the future): when it stops working; never by default.
 */
export async function createToken(
  store: Pick<Store, 'ensureOrganization' | 'insertToken'>,
  options: { org: string; readOnly?: boolean; description?: string; expiresAt?: number },
): Promise<{ id: string; token: string }> {
  const at = Date.now() / 1000;
  const { expiresAt } = options;
  if (expiresAt !== undefined && !(Number.isFinite(expiresAt) && expiresAt > at))
    throw new RangeError(`expiresAt must be a time in the future, not ${expiresAt}`);
  const alphanumeric = (n: number) =>
    randomBytes(n * 2)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, n);
  let id = alphanumeric(16);
  while (id.length < 16) id += alphanumeric(16).slice(0, 16 - id.length);
  const secret = randomBytes(32).toString('base64url');
  const organization = await store.ensureOrganization(options.org, at);
  await store.insertToken({
    id,
    organizationId: Number(organization.id),
    secretSha256: sha256(secret).toString('hex'),
    readOnly: options.readOnly ?? false,
    description: options.description ?? null,
    at,
    expiresAt: expiresAt ?? null,
  });
  return { id, token: `tp_${id}_${secret}` };
}
