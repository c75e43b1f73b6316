/** The attributes of an element as the JUnit report builder reads them (internal-builder.ts). */

/** Most attributes accepted on one element. */
export const MAX_ATTRIBUTES = 10_000;

/**
 * Every attribute the builder reads (the type below makes reading any other a compile error);
 * internal-plain.ts hands over only these.
 */
export const READ_ATTRIBUTES = [
  'name',
  'classname',
  'time',
  'timestamp',
  'status',
  'message',
  'type',
  'tests',
  'failures',
  'errors',
  'skipped',
  'file',
  'line',
] as const;

/** An element's attributes, as far as the builder is concerned. */
export type Attributes = Partial<Record<(typeof READ_ATTRIBUTES)[number], string>>;
