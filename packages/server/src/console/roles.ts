/**
 * The console's roles, named as Kosli names them: a reader reads, a member also reviews approvals
 * (anything that writes), an admin also manages who is signed in. Each role allows what the ones
 * before it allow.
 */
export const roles = ['reader', 'member', 'admin'] as const;
export type Role = (typeof roles)[number];

export const isRole = (text: unknown): text is Role => typeof text === 'string' && (roles as readonly string[]).includes(text);

/** Whether `role` may do what `needed` may. */
export const roleAllows = (role: Role, needed: Role) => roles.indexOf(role) >= roles.indexOf(needed);

/** The higher of two roles: a person granted several in one organisation holds the highest. */
export const higherRole = (a: Role, b: Role): Role => (roleAllows(a, b) ? a : b);
