/**
 * The failed test cases of a JUnit XML attachment, for the trail page: the API's JUnit data has
 * each suite's counts, and the names and messages of failed tests are only in the report the
 * attestation carries. Read with fast-xml-parser (well kept, no native parts); documents with a
 * DOCTYPE (entity declarations) are not read, nor reports over 2 MiB or compressed ones. What it
 * returns is bounded (cases, and each text) so that it can be kept and shown as it is; it runs on
 * a thread of its own (junit-cases-thread.ts), as a report can take seconds to read.
 */
import { XMLParser } from 'fast-xml-parser';

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
export const failedCasesReaderVersion = 1;

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

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  parseAttributeValue: false,
  parseTagValue: false,
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error'].includes(name),
});

type Node = Record<string, unknown>;
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? value.filter((v): v is Node => v !== null && typeof v === 'object') : []);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

export function failedCasesOf(bytes: Uint8Array): FailedCases {
  if (bytes.byteLength > maxReportBytes) return { unreadable: 'The report is over 2 MiB: download it to see every case.' };
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return { unreadable: 'The report is compressed (several files in a .tar.gz): download it to see every case.' };
  const xml = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (/<!DOCTYPE/i.test(xml)) return { unreadable: 'The report declares a DOCTYPE, which is not read here: download it.' };
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch {
    return { unreadable: 'The attachment is not a JUnit XML report that can be read here: download it.' };
  }
  const cases: FailedCase[] = [];
  let more = 0;
  const walk = (suite: Node) => {
    for (const testcase of nodes(suite.testcase)) {
      for (const kind of ['failure', 'error'] as const) {
        const raw = testcase[kind];
        const first: unknown = Array.isArray(raw) ? raw[0] : raw;
        if (first === undefined) continue;
        if (cases.length >= maxCases) {
          more++;
          break;
        }
        const r = (typeof first === 'object' && first !== null ? first : { '#text': str(first) }) as Node;
        cases.push({
          suite: cut(str(suite['@name']), maxName),
          className: cut(str(testcase['@classname']), maxName),
          name: cut(str(testcase['@name']), maxName),
          kind,
          message: cut(str(r['@message']) || str(r['@type']), maxMessage),
          details: cut(str(r['#text']).trim(), maxDetails),
        });
        break;
      }
    }
    for (const inner of nodes(suite.testsuite)) walk(inner);
  };
  const root = (doc.testsuites as Node | undefined) ?? doc;
  if (typeof root !== 'object' || root === null) return { cases, more };
  try {
    walk(root);
  } catch {
    // Suites nested deeper than the stack allows: what was found before is not the whole story.
    return { unreadable: 'The report nests its suites too deeply to be read here: download it.' };
  }
  return { cases, more };
}
