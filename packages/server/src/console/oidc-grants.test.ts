/** What a provider's claims give (groups or verified e-mail domains), and the sign-in settings `serve` reads from the environment. */
import { expect } from 'chai';
import { consoleSignInFromEnvironment } from '../cli/console-sign-in.ts';
import { UsageError } from '../cli/common.ts';
import { grantsOf } from './oidc.ts';

describe('OpenID claims to organisations and roles', () => {
  it('reads groups org:role after the prefix, keeps the highest role of an organisation, and ignores anything else', () => {
    const mapping = { kind: 'groups', claim: 'groups', prefix: 'tp:' } as const;
    const groups = ['tp:acme:reader', 'tp:acme:admin', 'tp:globex:member', 'acme:admin', 'tp:initech:owner', 'tp:a:b:member', 42];
    expect(Object.fromEntries(grantsOf(mapping, { groups }))).to.deep.equal({ acme: 'admin', globex: 'member' });
    expect(grantsOf(mapping, { groups: 'tp:acme:admin' }).size, 'a claim that is not a list').to.equal(0);
    expect(grantsOf({ ...mapping, claim: 'roles' }, { groups }).size, 'another claim').to.equal(0);
  });

  it('gives an e-mail domain its organisation only for a verified address at exactly that domain', () => {
    const mapping = { kind: 'email-domains', domains: { 'example.com': { org: 'acme', role: 'member' } } } as const;
    expect(Object.fromEntries(grantsOf(mapping, { email: 'Ada@Example.com', email_verified: true }))).to.deep.equal({ acme: 'member' });
    expect(grantsOf(mapping, { email: 'ada@example.com' }).size, 'not verified').to.equal(0);
    expect(grantsOf(mapping, { email: 'ada@example.com', email_verified: 'true' }).size, 'verified must be true itself').to.equal(0);
    expect(grantsOf(mapping, { email: 'ada@evil-example.com', email_verified: true }).size).to.equal(0);
    expect(grantsOf(mapping, { email: 'ada@sub.example.com', email_verified: true }).size).to.equal(0);
  });
});

describe('serve: the console sign-in settings', () => {
  const provider = { TRAILPROOF_OIDC_ISSUER: 'https://login.example.com/', TRAILPROOF_OIDC_CLIENT_ID: 'tp', TRAILPROOF_OIDC_CLIENT_SECRET: 's' };

  it('sets up no provider by default, and a provider with groups by default when the issuer is set', () => {
    expect(consoleSignInFromEnvironment({})).to.deep.equal({ tokenSignIn: true });
    const { oidc, tokenSignIn } = consoleSignInFromEnvironment({ ...provider, TRAILPROOF_OIDC_SCOPES: 'groups  offline_access' });
    expect(tokenSignIn).to.equal(true);
    expect(oidc).to.deep.equal({
      issuer: 'https://login.example.com',
      clientId: 'tp',
      clientSecret: 's',
      mapping: { kind: 'groups', claim: 'groups', prefix: '' },
      extraScopes: ['groups', 'offline_access'],
    });
  });

  it('reads e-mail domains, a redirect base and token sign-in off; refuses what would not work, naming the variable', () => {
    const { oidc, tokenSignIn } = consoleSignInFromEnvironment({
      ...provider,
      TRAILPROOF_OIDC_EMAIL_DOMAINS: 'Example.com=acme:member, contractor.example=acme:reader',
      TRAILPROOF_OIDC_REDIRECT_BASE_URL: 'https://tp.example.com',
      TRAILPROOF_CONSOLE_TOKEN_SIGN_IN: 'false',
    });
    expect(tokenSignIn).to.equal(false);
    expect(oidc?.redirectBaseUrl).to.equal('https://tp.example.com');
    expect(oidc?.mapping).to.deep.equal({
      kind: 'email-domains',
      domains: { 'example.com': { org: 'acme', role: 'member' }, 'contractor.example': { org: 'acme', role: 'reader' } },
    });
    const refused = (env: Record<string, string>, words: RegExp) => expect(() => consoleSignInFromEnvironment(env)).to.throw(UsageError, words);
    refused({ TRAILPROOF_CONSOLE_TOKEN_SIGN_IN: 'false' }, /nobody could sign in/);
    refused({ ...provider, TRAILPROOF_OIDC_CLIENT_SECRET: '' }, /TRAILPROOF_OIDC_CLIENT_SECRET/);
    refused({ ...provider, TRAILPROOF_OIDC_ISSUER: 'login.example.com' }, /TRAILPROOF_OIDC_ISSUER must be an http\(s\) URL/);
    refused({ ...provider, TRAILPROOF_OIDC_EMAIL_DOMAINS: 'example.com=acme:owner' }, /TRAILPROOF_OIDC_EMAIL_DOMAINS/);
  });
});
