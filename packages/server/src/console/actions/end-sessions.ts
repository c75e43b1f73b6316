/** An admin ends a person's sessions in the organisation (a person who left, a laptop lost): their next page asks them to sign in. */
import { ApiError } from '../../http/errors.ts';
import { defineAction } from '../action.ts';
import { orgHref } from '../links.ts';

export const endSessionsAction = defineAction({
  path: '/:org/people/end',
  role: 'admin',
  async run(input) {
    const issuer = input.form.get('issuer') ?? '';
    const subject = input.form.get('subject') ?? '';
    if (!issuer || !subject) throw new ApiError(400, 'Whose sessions to end: the form names an issuer and a subject.', { subject: 'required' });
    await input.store.endIdentitySessions({ issuer, subject, keep: [], onlyIn: input.org.id });
    return { redirect: orgHref(input, 'people') };
  },
});
