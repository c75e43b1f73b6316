/** The sign-in page: one field for an API token. Not an organisation's page, so not registered as one. */
import { Layout } from '../layout.tsx';

export function SignInPage({ base, next, problem }: { base: string; next?: string; problem?: string }) {
  return (
    <Layout title="Sign in" base={base}>
      <h1>Sign in</h1>
      <p>Paste an API token of your organisation. A read-only token is enough: the console only reads.</p>
      {problem ? (
        <p class="error-box" role="alert">
          {problem}
        </p>
      ) : null}
      <form class="sign-in" method="post" action={`${base}/sign-in`}>
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus spellcheck={false} placeholder="tp_…" />
        {next ? <input type="hidden" name="next" value={next} /> : null}
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        No token yet? On the server: <code>trailproof token create --org ORG --read-only</code>
      </p>
    </Layout>
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
