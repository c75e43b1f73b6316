/**
 * Helpers shared by the JUnit reader's dialect-rule tests (reader*.test.ts): read functions that also collect every case, byte
 * streams, fixtures and the expected error.
 */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import * as reader from './index.ts';
import { JunitReadError, type JunitCase, type JunitFileReport, type JunitReadOptions } from './index.ts';

/** A report with every case, collected through `onCase` (the report itself keeps only failures). */
type WithCases = JunitFileReport & { cases: JunitCase[] };
async function withCases(read: (options: JunitReadOptions) => Promise<JunitFileReport>, options?: JunitReadOptions): Promise<WithCases> {
  const cases: JunitCase[] = [];
  const report = await read({ ...options, onCase: (c) => cases.push(c) });
  return { ...report, cases };
}
/** readJunitFile, also collecting every case in `cases`. */
export const readJunitFile = (path: string, options?: JunitReadOptions) => withCases((o) => reader.readJunitFile(path, o), options);
/** readJunitStream, also collecting every case in `cases`. */
export const readJunitStream = (stream: AsyncIterable<Uint8Array>, file: string, options?: JunitReadOptions) =>
  withCases((o) => reader.readJunitStream(stream, file, o), options);
/** readJunitBytes, also collecting every case in `cases`. */
export const readJunitBytes = (bytes: Uint8Array, file: string, options?: JunitReadOptions) => withCases((o) => reader.readJunitBytes(bytes, file, o), options);
/** readJunitString, also collecting every case in `cases`. */
export const readJunitString = (xml: string, file?: string, options?: JunitReadOptions) => withCases((o) => reader.readJunitString(xml, file, o), options);

/** The path of a file in the fixtures folder beside this module. */
export const fixture = (name: string): string => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));

/** The bytes in slices of `size` bytes, as a stream. */
export async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Reads the bytes as a stream of `size`-byte slices, collecting every case. */
export function fromBytes(bytes: Uint8Array, size = 64 * 1024, file = 'test.xml'): Promise<WithCases> {
  return readJunitStream(chunks(bytes, size), file);
}

/** The JunitReadError the promise rejects with (fails the test if it resolves or rejects with anything else). */
export async function rejection(p: Promise<unknown>): Promise<JunitReadError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(JunitReadError);
    return e as JunitReadError;
  }
  throw new Error('expected a JunitReadError');
}

/** One suite "s" holding the given case elements. */
export const suite = (cases: string, attrs = ''): string => `<testsuite name="s"${attrs}>${cases}</testsuite>`;
