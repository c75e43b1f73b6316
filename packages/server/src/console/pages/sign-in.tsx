/** The sign-in page: a button to the identity provider and/or a field for an API token, as configured. Not an organisation's page, so not registered as one. */
import { Layout } from '../layout.tsx';

/** The ways to sign in a server offers: an API token, an OpenID provider (by its name), or both. */
export interface SignInMethods {
  token: boolean;
  oidcLabel?: string;
}

export function SignInPage({ base, next, problem, methods }: { base: string; next?: string; problem?: string; methods: SignInMethods }) {
  return (
    <Layout title="Sign in" base={base}>
      <h1>Sign in</h1>
      {problem ? (
        <p class="error-box" role="alert">
          {problem}
        </p>
      ) : null}
      {methods.oidcLabel ? (
        // A link, not a form: the Content-Security-Policy's form-action would stop a form's redirect to the provider.
        <p class="sign-in">
          <a class="button" id="sign-in-oidc" href={`${base}/sign-in/oidc${next ? `?next=${encodeURIComponent(next)}` : ''}`}>
            Sign in with {methods.oidcLabel}
          </a>
        </p>
      ) : null}
      {methods.token ? <TokenForm base={base} next={next} /> : null}
    </Layout>
  );
}

function TokenForm({ base, next }: { base: string; next?: string }) {
  return (
    <>
      <p>Paste an API token of your organisation. A read-only token signs you in as a reader; a read-write one as a member.</p>
      <form class="sign-in" method="post" action={`${base}/sign-in`}>
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus spellcheck={false} placeholder="tp_…" />
        {next ? <input type="hidden" name="next" value={next} /> : null}
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        No token yet? On the server: <code>trailproof token create --org ORG --read-only</code>
      </p>
    </>
  );
}

/** An error page (unknown path, another organisation's page, a refused form). */
export function ProblemPage({ base, org, status, message }: { base: string; org?: string; status: number; message: string }) {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Refused' : 'Something went wrong';
  return (
    <Layout title={title} base={base} org={org}>
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href={org ? `${base}/${encodeURIComponent(org)}` : `${base}/sign-in`}>Back to the start</a>
      </p>
    </Layout>
  );
}
