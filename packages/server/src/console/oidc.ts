/**
 * Sign-in through an OpenID provider (openid-client): the authorization code flow with PKCE,
 * `state` and `nonce`. The server is a confidential client: it discovers the provider from its
 * issuer URL once (again after a failure), sends the browser there, and on the way back trades the
 * code for an ID token whose signature, issuer, audience, expiry and nonce openid-client checks.
 * The claims then map the person to organisations and roles (`grantsOf`).
 */
import * as client from 'openid-client';
import { ApiError } from '../http/errors.ts';
import type { ConsoleIdentity } from '../store/index.ts';
import { higherRole, isRole, type Role } from './roles.ts';

/** How claims give a person organisations and roles. */
export type OidcMapping =
  /** A group `<prefix><org>:<role>` in the claim `claim` (a list of strings) gives that role there. */
  | { kind: 'groups'; claim: string; prefix: string }
  /** A verified e-mail address at a domain gives the organisation and role named for it. */
  | { kind: 'email-domains'; domains: Readonly<Record<string, { org: string; role: Role }>> };

export interface OidcSignInOptions {
  /** The provider's issuer URL, exactly as its discovery document names it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * The console's origin as the browser reaches it (`https://trailproof.example.com`): the redirect
   * URI starts with it. By default the request's own origin (behind a proxy, as the trusted proxy says).
   */
  redirectBaseUrl?: string;
  mapping: OidcMapping;
  /** Scopes asked for beside `openid email profile` (some providers send groups only for a `groups` scope). */
  extraScopes?: readonly string[];
  /** The provider's name on the sign-in page's button. */
  label?: string;
}

/** What the browser keeps between leaving for the provider and coming back (an HttpOnly cookie, used once). */
export interface OidcTransaction {
  state: string;
  nonce: string;
  verifier: string;
  next?: string;
}

/** What the provider vouched for: the identity and the claims. */
export interface VouchedPerson {
  person: ConsoleIdentity;
  claims: Record<string, unknown>;
}

export const callbackPath = '/sign-in/oidc/callback';

/** Where the console answers: the origin of the request and the console's path there. */
export interface ConsoleAddress {
  origin: string;
  base: string;
}

/** Discovery and the two halves of a sign-in, for one configured provider. */
export function createOidcSignIn(options: OidcSignInOptions) {
  let configuration: Promise<client.Configuration> | undefined;
  const discovered = () => (configuration ??= discover(options).catch((error: unknown) => ((configuration = undefined), Promise.reject(error))));
  const redirectUri = (at: ConsoleAddress) => `${(options.redirectBaseUrl ?? at.origin).replace(/\/+$/, '')}${at.base}${callbackPath}`;
  return {
    label: options.label ?? 'your identity provider',
    mapping: options.mapping,
    async start(at: ConsoleAddress, next: string | undefined): Promise<{ url: string; transaction: OidcTransaction }> {
      const config = await unreachableAs502(discovered());
      const transaction = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), next };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri(at),
        scope: ['openid', 'email', 'profile', ...(options.extraScopes ?? [])].join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(transaction.verifier),
        code_challenge_method: 'S256',
        state: transaction.state,
        nonce: transaction.nonce,
      });
      return { url: url.href, transaction };
    },
    async finish(at: ConsoleAddress, search: string, transaction: OidcTransaction): Promise<VouchedPerson> {
      const config = await unreachableAs502(discovered());
      const callback = new URL(`${redirectUri(at)}${search}`);
      const checks = { pkceCodeVerifier: transaction.verifier, expectedState: transaction.state, expectedNonce: transaction.nonce, idTokenExpected: true };
      const tokens = await client.authorizationCodeGrant(config, callback, checks).catch(refusedAs401);
      const claims = tokens.claims() as Record<string, unknown> & { iss: string; sub: string };
      const email = typeof claims.email === 'string' ? claims.email : null;
      return { person: { issuer: claims.iss, subject: claims.sub, email }, claims };
    },
  };
}

export type OidcSignIn = ReturnType<typeof createOidcSignIn>;

async function discover(o: OidcSignInOptions): Promise<client.Configuration> {
  const issuer = new URL(o.issuer);
  // Plain HTTP only to a provider on this machine (a test's, a developer's); anywhere else TLS.
  const loopback = issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
  return client.discovery(issuer, o.clientId, o.clientSecret, undefined, { ...(loopback ? { execute: [client.allowInsecureRequests] } : {}), timeout: 10 });
}

/** The provider did not answer (or answered no discovery document): the server's neighbour failed, not the person. */
function unreachableAs502<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    throw new ApiError(502, `The identity provider could not be reached: ${(error as Error).message}`);
  });
}

/** A code, state, nonce or ID token that does not hold: the sign-in is refused, and says why. */
function refusedAs401(error: unknown): never {
  if (error instanceof TypeError) throw new ApiError(502, `The identity provider could not be reached: ${error.message}`);
  // openid-client's message is general ("unexpected JWT claim value"); the check it wraps names the claim at fault.
  const cause = (error as Error).cause;
  const detail = cause instanceof Error && cause.message ? `: ${cause.message}` : '';
  throw new ApiError(401, `The identity provider's answer was refused: ${(error as Error).message}${detail}`);
}

/** The organisations (by name) and roles the claims give; a person granted several roles in one holds the highest. */
export function grantsOf(mapping: OidcMapping, claims: Record<string, unknown>): Map<string, Role> {
  const grants = new Map<string, Role>();
  const grant = (org: string, role: Role) => grants.set(org, grants.has(org) ? higherRole(grants.get(org)!, role) : role);
  if (mapping.kind === 'groups') {
    const groups = Array.isArray(claims[mapping.claim]) ? (claims[mapping.claim] as unknown[]) : [];
    for (const group of groups) {
      if (typeof group !== 'string' || !group.startsWith(mapping.prefix)) continue;
      const [org, role, ...rest] = group.slice(mapping.prefix.length).split(':');
      if (org && isRole(role) && rest.length === 0) grant(org, role);
    }
    return grants;
  }
  // An address the provider has not verified could be anyone's: it gives nothing.
  const email = claims.email_verified === true && typeof claims.email === 'string' ? claims.email.toLowerCase() : '';
  const domain = email.slice(email.lastIndexOf('@') + 1);
  const entry = email.includes('@') ? mapping.domains[domain] : undefined;
  if (entry) grant(entry.org, entry.role);
  return grants;
}
