/**
 * The failed test cases of a JUnit XML attachment, for the trail page: the API's JUnit data has
 * each suite's counts, and the names and messages of failed tests are only in the report the
 * attestation carries. Read with the action's reader (`@trailproof/junit`), so that the page and
 * the attested counts follow one set of rules; documents with a DOCTYPE (entity declarations) are
 * not read, nor reports over 2 MiB or compressed ones. What it returns is bounded (cases, and each
 * text) so that it can be kept and shown as it is; it runs on a thread of its own
 * (junit-cases-thread.ts), as a report can take seconds to read.
 */
import { JunitReadError, readJunitBytes, type JunitCase } from '@trailproof/junit';

export interface FailedCase {
  suite: string;
  className: string;
  name: string;
  kind: 'failure' | 'error';
  message: string;
  details: string;
}

export type FailedCases = { cases: FailedCase[]; more: number } | { unreadable: string };

/** Names the reading below in what is kept of it: a change to what it returns takes the next number, and kept readings of another are read again. */
export const failedCasesReaderVersion = 2;

/** Reports larger than this are not read. */
export const maxReportBytes = 2 * 1024 * 1024;
const maxCases = 50;
const maxName = 300;
const maxMessage = 1000;
const maxDetails = 2000;

/** `text` cut to `max` UTF-16 units (not inside a surrogate pair), marked with an ellipsis where it was cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** The reader keeps one unit more than is shown, so that `cut` marks a text it cut. */
const readOptions = { maxFailures: maxCases, maxDetailsLength: maxDetails + 1 };

const shown = (c: JunitCase): FailedCase => ({
  suite: cut(c.suiteName, maxName),
  className: cut(c.className, maxName),
  name: cut(c.name, maxName),
  kind: c.outcome === 'error' ? 'error' : 'failure',
  message: cut(c.message ?? c.type ?? '', maxMessage),
  details: cut((c.details ?? '').trim(), maxDetails),
});

export async function failedCasesOf(bytes: Uint8Array): Promise<FailedCases> {
  if (bytes.byteLength > maxReportBytes) return { unreadable: 'The report is over 2 MiB: download it to see every case.' };
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return { unreadable: 'The report is compressed (several files in a .tar.gz): download it to see every case.' };
  // Said in words of its own: the reader refuses it as corrupt XML, which it is not.
  if (/<!DOCTYPE/i.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'))) {
    return { unreadable: 'The report declares a DOCTYPE, which is not read here: download it.' };
  }
  try {
    const report = await readJunitBytes(bytes, '', readOptions);
    return { cases: report.failures.map(shown), more: report.moreFailures };
  } catch (error) {
    if (!(error instanceof JunitReadError)) throw error;
    return { unreadable: 'The attachment is not a JUnit XML report that can be read here: download it.' };
  }
}
