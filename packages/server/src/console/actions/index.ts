/** The console's actions (the forms that write), in the order they are matched. To add one: write `actions/<action>.ts` exporting `defineAction(...)` and list it here. */
import type { Action } from '../action.ts';
import { endSessionsAction } from './end-sessions.ts';
import { reviewApprovalAction } from './review-approval.ts';

export const consoleActions: readonly Action[] = [reviewApprovalAction, endSessionsAction];
