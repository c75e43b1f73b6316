/**
 * The failed test cases of a JUnit XML attachment, for the trail page: the API's JUnit data has
 * each suite's counts, and the names and messages of failed tests are only in the report the
 * attestation carries. Read with fast-xml-parser (well kept, no native parts); documents with a
 * DOCTYPE (entity declarations) are not read, nor reports over 2 MiB or compressed ones.
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

const maxBytes = 2 * 1024 * 1024;
const maxCases = 50;
const maxDetails = 2000;

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
  if (bytes.byteLength > maxBytes) return { unreadable: 'The report is over 2 MiB: download it to see every case.' };
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
          suite: str(suite['@name']),
          className: str(testcase['@classname']),
          name: str(testcase['@name']),
          kind,
          message: str(r['@message']) || str(r['@type']),
          details: str(r['#text']).trim().slice(0, maxDetails),
        });
        break;
      }
    }
    for (const inner of nodes(suite.testsuite)) walk(inner);
  };
  const root = (doc.testsuites as Node | undefined) ?? doc;
  if (typeof root !== 'object' || root === null) return { cases, more };
  walk(root);
  return { cases, more };
}
