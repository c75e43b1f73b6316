/**
 * A console action is a plain value like a page: a form's POST address under the console's prefix
 * (always starting `/:org`), the least role that may send it, and what it does. `createConsole`
 * checks the session, the organisation, the form's origin and the role before `run` is called, so
 * that no action can forget them; a role that does not suffice answers 403 and changes nothing.
 */
import type { PageInput } from './page.ts';
import type { Role } from './roles.ts';
import type { SessionHolder } from './sessions.ts';

export interface ActionInput extends PageInput {
  /** The form as sent (at most 8 KiB). */
  form: URLSearchParams;
  /** Who sent it, as the session knows: a person the provider vouched for, or a token. */
  holder: SessionHolder;
}

export interface Action {
  /** Under the console's prefix, in @koa/router's syntax: `/:org/flows/:flow/approvals/:number/review`. */
  path: string;
  role: Role;
  /** Where the browser goes next: a page of the console. */
  run(input: ActionInput): Promise<{ redirect: string }>;
}

/** Identity, for type inference at the definition site. */
export const defineAction = (action: Action): Action => action;
