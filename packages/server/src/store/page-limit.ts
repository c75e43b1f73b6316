/**
 * A page's LIMIT as the expression `? + 0` rather than the bare parameter `?`. SQLite (3.47 and
 * later) reads a bound LIMIT's value while planning, so it marks the statement to be planned
 * again whenever that parameter is bound anew: every run of a cached list statement was parsed
 * and planned once more (about a sixth of a reader thread's time on a page of environments). It
 * does not read an expression's value; the plans of the benchmark's queries are unchanged (the
 * same indexes, no sort added). PostgreSQL takes the same expression.
 */
import { sql, type RawBuilder } from 'kysely';

export const pageLimit = (limit: number): RawBuilder<number> => sql<number>`${limit} + 0`;
