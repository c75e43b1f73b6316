/**
 * Pages bounded by bytes as well as by count: a page of 20 attestations of 1 MB each was 20 MB
 * read, parsed and written as one answer, and held the event loop (health waited 2.6 s). A page
 * now stops before its data passes a budget, and says where the next one starts.
 */

/** Data (attestation data, as stored) one answer carries at most, unless a single item is larger. */
export const pageDataBytes = 4 * 1024 * 1024;

/**
 * How many of the leading items (their sizes in bytes, in page order) fit in `budget`: at least
 * one when there is any, so that every item can be read, however large.
 */
export function countWithin(sizes: readonly number[], budget = pageDataBytes): number {
  let used = 0;
  for (let i = 0; i < sizes.length; i++) {
    used += sizes[i]!;
    if (used > budget) return Math.max(i, 1);
  }
  return sizes.length;
}
