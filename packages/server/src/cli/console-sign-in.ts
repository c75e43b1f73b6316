/** The console's sign-in settings from the environment: an OpenID provider, and whether API tokens sign in too. */
import { UsageError } from './common.ts';
import type { OidcMapping, OidcSignInOptions } from '../console/oidc.ts';
import { isRole } from '../console/roles.ts';

/** The environment variables of the console's sign-in, as `--help` lists them. */
export const consoleSignInEnvironment = [
  ['TRAILPROOF_OIDC_ISSUER', "the OpenID provider's issuer URL (https; http only on loopback): sets up sign-in through it (off by default)"],
  ['TRAILPROOF_OIDC_CLIENT_ID', 'the client id registered at the provider'],
  ['TRAILPROOF_OIDC_CLIENT_SECRET', 'the client secret registered at the provider (the server is a confidential client)'],
  [
    'TRAILPROOF_OIDC_REDIRECT_BASE_URL',
    "the console's origin as browsers reach it, as https://trailproof.example.com (default: the request's, as --trust-proxy tells it); register ORIGIN/ui/sign-in/oidc/callback at the provider",
  ],
  [
    'TRAILPROOF_OIDC_GROUPS_CLAIM',
    "the claim listing a person's groups (default groups); a group PREFIXorg:role (reader, member, admin) gives that role there",
  ],
  ['TRAILPROOF_OIDC_GROUP_PREFIX', 'the prefix of the groups that count, as trailproof: (default none: every group of the form org:role)'],
  ['TRAILPROOF_OIDC_EMAIL_DOMAINS', 'instead of groups: verified e-mail domains and what they give, as example.com=acme:member,contractor.example=acme:reader'],
  ['TRAILPROOF_OIDC_SCOPES', 'scopes asked for beside openid email profile, space-separated (as groups, for providers that need it)'],
  ['TRAILPROOF_OIDC_LABEL', "the provider's name on the sign-in button (default: your identity provider)"],
  ['TRAILPROOF_CONSOLE_TOKEN_SIGN_IN', 'whether an API token signs in to the console too: true (the default) or false (with a provider only)'],
] as const;

/** The console's sign-in options from the environment; a UsageError naming the variable at fault. */
export function consoleSignInFromEnvironment(env: NodeJS.ProcessEnv = process.env): { oidc?: OidcSignInOptions; tokenSignIn: boolean } {
  const tokenSignIn = !['false', '0', 'no', 'off'].includes((env.TRAILPROOF_CONSOLE_TOKEN_SIGN_IN ?? '').trim().toLowerCase());
  if (!env.TRAILPROOF_OIDC_ISSUER) {
    if (!tokenSignIn) throw new UsageError('TRAILPROOF_CONSOLE_TOKEN_SIGN_IN=false needs TRAILPROOF_OIDC_ISSUER: nobody could sign in');
    return { tokenSignIn };
  }
  const required = (name: string) => {
    const value = env[name]?.trim();
    if (!value) throw new UsageError(`${name} must be set with TRAILPROOF_OIDC_ISSUER`);
    return value;
  };
  const issuer = urlSetting('TRAILPROOF_OIDC_ISSUER', required('TRAILPROOF_OIDC_ISSUER'));
  const redirectBase = env.TRAILPROOF_OIDC_REDIRECT_BASE_URL?.trim();
  const oidc: OidcSignInOptions = {
    issuer,
    clientId: required('TRAILPROOF_OIDC_CLIENT_ID'),
    clientSecret: required('TRAILPROOF_OIDC_CLIENT_SECRET'),
    ...(redirectBase ? { redirectBaseUrl: urlSetting('TRAILPROOF_OIDC_REDIRECT_BASE_URL', redirectBase) } : {}),
    mapping: mappingOf(env),
    extraScopes: (env.TRAILPROOF_OIDC_SCOPES ?? '').split(/\s+/).filter(Boolean),
    ...(env.TRAILPROOF_OIDC_LABEL ? { label: env.TRAILPROOF_OIDC_LABEL } : {}),
  };
  return { oidc, tokenSignIn };
}

function urlSetting(name: string, raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new UsageError(`${name} must be an http(s) URL, not '${raw}'`);
  return raw.replace(/\/+$/, '');
}

function mappingOf(env: NodeJS.ProcessEnv): OidcMapping {
  const domains = env.TRAILPROOF_OIDC_EMAIL_DOMAINS?.trim();
  if (!domains) return { kind: 'groups', claim: env.TRAILPROOF_OIDC_GROUPS_CLAIM?.trim() || 'groups', prefix: env.TRAILPROOF_OIDC_GROUP_PREFIX ?? '' };
  const entries: Record<string, { org: string; role: 'reader' | 'member' | 'admin' }> = {};
  for (const item of domains.split(',')) {
    const match = /^\s*([a-z0-9.-]+)=([^:\s]+):(\w+)\s*$/i.exec(item);
    if (!match || !isRole(match[3])) throw new UsageError(`TRAILPROOF_OIDC_EMAIL_DOMAINS: '${item}' is not domain=org:role (role reader, member or admin)`);
    entries[match[1]!.toLowerCase()] = { org: match[2]!, role: match[3] };
  }
  return { kind: 'email-domains', domains: entries };
}
