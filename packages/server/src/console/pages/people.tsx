/** An admin's page: the people signed in to the organisation through the identity provider, each with a button that ends their sessions. */
import { Empty } from '../components/empty.tsx';
import { Time } from '../components/time.tsx';
import { orgHref } from '../links.ts';
import { definePage } from '../page.ts';

export const peoplePage = definePage({
  path: '/:org/people',
  role: 'admin',
  async render(input) {
    const sessions = await input.store.listIdentitySessions(input.org.id, input.now);
    return {
      title: 'People signed in',
      content: (
        <>
          <h1>People signed in</h1>
          <p class="muted">
            Signed in through the identity provider, with the role its claims gave. Ending a person's sessions signs them out now; their provider decides
            whether they may sign in again.
          </p>
          {sessions.length === 0 ? (
            <Empty>Nobody is signed in through the identity provider.</Empty>
          ) : (
            <table>
              <caption class="visually-hidden">People signed in, newest sign-in first</caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Role</th>
                  <th scope="col">Signed in (UTC)</th>
                  <th scope="col">Sessions</th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s) => (
                  <tr key={`${s.issuer} ${s.subject} ${s.createdAt}`}>
                    <td title={`${s.subject} at ${s.issuer}`}>{s.email ?? s.subject}</td>
                    <td>{s.role}</td>
                    <td>
                      <Time at={s.createdAt} now={input.now} />
                    </td>
                    <td>
                      <form method="post" action={orgHref(input, 'people', 'end')}>
                        <input type="hidden" name="issuer" value={s.issuer} />
                        <input type="hidden" name="subject" value={s.subject} />
                        <button type="submit">End sessions</button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ),
    };
  },
});
