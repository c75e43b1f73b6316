/**
 * A limit on failed token checks per client address (API bearer tokens, console sign-in, badges,
 * metrics): each address has a budget of failures that refills evenly over a minute; once it is
 * spent, that address's token checks are refused with 429 and `Retry-After` before the token is
 * looked at, so a guess costs time even when it would have been right. Other addresses are
 * untouched. Memory is bounded: a fixed number of addresses is kept, the one that failed least
 * recently forgotten first. IPv6 addresses count by their /64, which one host usually has whole.
 */
import { isIPv6 } from 'node:net';
import type { Context } from 'koa';
import type { Authenticator, Principal } from '../auth.ts';
import { ApiError } from './errors.ts';

export interface FailedAuthLimitOptions {
  /** Failed token checks one address may make a minute (30 by default), as many of them at once. */
  perMinute?: number;
  /** Addresses remembered at once (10,000 by default). */
  addresses?: number;
  /** The clock, in milliseconds (`Date.now` by default). */
  now?: () => number;
}

export const defaultFailedTokenChecksPerMinute = 30;
const defaultAddresses = 10_000;

/** An address's budget: failures it may still make, as of `at` (ms). */
interface Budget {
  left: number;
  at: number;
}

export class FailedAuthLimit {
  readonly perMinute: number;
  readonly #addresses: number;
  readonly #now: () => number;
  /** In order of the latest failure, oldest first: a Map keeps insertion order. */
  readonly #budgets = new Map<string, Budget>();

  constructor(options: FailedAuthLimitOptions = {}) {
    this.perMinute = options.perMinute ?? defaultFailedTokenChecksPerMinute;
    this.#addresses = options.addresses ?? defaultAddresses;
    this.#now = options.now ?? Date.now;
    if (!(Number.isInteger(this.perMinute) && this.perMinute >= 1))
      throw new RangeError(`perMinute must be a whole number of at least 1, not ${this.perMinute}`);
    if (!(Number.isInteger(this.#addresses) && this.#addresses >= 1))
      throw new RangeError(`addresses must be a whole number of at least 1, not ${this.#addresses}`);
  }

  /** How many addresses are remembered now. */
  get size(): number {
    return this.#budgets.size;
  }

  /** Seconds until `address` may have a token checked again; 0 when it may now. */
  waitSeconds(address: string): number {
    const left = this.#left(addressKey(address));
    return left >= 1 ? 0 : Math.ceil(((1 - left) * 60) / this.perMinute);
  }

  /** Counts a failed check from `address`. */
  failed(address: string): void {
    const key = addressKey(address);
    const left = this.#left(key);
    this.#budgets.delete(key);
    this.#budgets.set(key, { left: left - 1, at: this.#now() });
    if (this.#budgets.size > this.#addresses) this.#budgets.delete(this.#budgets.keys().next().value!);
  }

  /**
   * Checks the request's `authorization` with `auth`: 429 while the request's address (`ctx.ip`:
   * the socket's, or X-Forwarded-For's behind a trusted proxy) has no failures left, and a token
   * refused counted against it. No header is no check: nothing is counted.
   */
  async authenticate(ctx: Context, auth: Authenticator, authorization: string | undefined): Promise<Principal | null> {
    if (!authorization) return auth.authenticate(authorization);
    const wait = this.waitSeconds(ctx.ip);
    if (wait > 0) {
      const message = `Too many failed token checks from this address: try again in ${wait} s`;
      throw new ApiError(
        429,
        message,
        { authorization: `at most ${this.perMinute} failed token checks a minute from one address` },
        { 'Retry-After': String(wait) },
      );
    }
    const principal = await auth.authenticate(authorization);
    if (!principal) this.failed(ctx.ip);
    return principal;
  }

  /** Failures `key` may still make now; a budget refilled whole is forgotten. */
  #left(key: string): number {
    const budget = this.#budgets.get(key);
    if (!budget) return this.perMinute;
    const left = Math.min(this.perMinute, budget.left + ((this.#now() - budget.at) * this.perMinute) / 60_000);
    if (left >= this.perMinute) this.#budgets.delete(key);
    return left;
  }
}

/** What an address counts as: IPv4 as it is (an IPv4-mapped IPv6 address too), IPv6 by its first 64 bits. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const plain = address.split('%')[0]!;
  if (!isIPv6(plain)) return address.slice(0, 64);
  const [head = '', tail] = plain.split('::');
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const first = groups(head);
  const all = tail === undefined ? first : [...first, ...Array(8 - first.length - groups(tail).length).fill('0'), ...groups(tail)];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
