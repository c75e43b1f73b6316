/**
 * The plain-XML fast path (internal-plain.ts) against saxes: a whole document (readJunitString,
 * small files) and the same bytes streamed (readJunitStream, always saxes) must give the same
 * report, the same cases through onCase and the same error, for well-formed and broken documents.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readJunitFile, readJunitStream, readJunitString, type JunitCase, type JunitReadOptions } from './index.ts';
import { ReportBuilder } from './internal-builder.ts';
import { PlainScanner, readPlain } from './internal-plain.ts';

const sample = `<?xml version="1.0" encoding="UTF-8" standalone='yes'?>
<!-- generated -->
<testsuites name="all">
  <testsuite name="s&amp;1" tests="3" timestamp="2024-01-01T00:00:00Z">
    <properties><property name="a" value="b&#10;c	d"/></properties>
    <testcase classname="C" name="t1" time="0.5"><failure message="m &lt;x&gt;" type="T">line1 &amp; &#x41;&#128512;
  at x</failure><system-out><![CDATA[out]]></system-out></testcase>
    <testcase classname="C" name='t2' status="skipped"/>
    <testcase classname="C" name="t3"><error message="e">
<![CDATA[cdata ]] text]]> tail &quot;q&quot;</error><!-- x --></testcase>
  </testsuite>
</testsuites>
`;

/** Pieces that are significant to XML, or that the fast path must leave to saxes. */
const pieces = [
  '<',
  '>',
  '&',
  ';',
  '"',
  "'",
  '/',
  '!',
  '-',
  '?',
  ']',
  '[',
  '=',
  ' ',
  '\n',
  '\r',
  '\t',
  'a',
  ':',
  '#',
  'x',
  'é',
  '\u0001',
  '\uFFFE',
  '&#0;',
  '&#x110000;',
  '&foo;',
  '&#X41;',
  '<!DOCTYPE a>',
  '<?pi x?>',
  ']]>',
  '--',
  '<!---->',
  'CDATA',
];

interface Outcome {
  report?: unknown;
  error?: string;
  cases: JunitCase[];
}

async function outcome(read: (options: JunitReadOptions) => Promise<unknown>): Promise<Outcome> {
  const cases: JunitCase[] = [];
  try {
    return { report: await read({ maxDetailsLength: 64, onCase: (c) => cases.push(c) }), cases };
  } catch (e) {
    return { error: (e as Error).message, cases };
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * The plain scanner fed `xml` in pieces cut at `cuts` (never inside a surrogate pair): the report,
 * or null where it gave up. `cap` as readPlain's.
 */
function readInPieces(xml: string, cuts: number[], cap = 65536): unknown {
  const builder = new ReportBuilder('f.xml', { maxDetails: 64, maxFailures: 100, onCase: undefined });
  const scanner = new PlainScanner(builder, cap);
  let from = 0;
  try {
    for (const cut of [...cuts, xml.length].sort((a, b) => a - b)) {
      let to = cut;
      if (to > from && to < xml.length && /[\uD800-\uDBFF]/.test(xml[to - 1] ?? '')) to++;
      if (to <= from) continue;
      if (!scanner.write(xml.slice(from, to))) return null;
      from = to;
    }
    return scanner.write('', true) ? builder.finish() : null;
  } catch {
    return null;
  }
}

describe('JUnit reader: plain-XML fast path', () => {
  it('reads the sample without saxes, as saxes does', async () => {
    expect(readPlain(sample, 'f.xml', { maxDetails: 4096, maxFailures: 100, onCase: undefined }, 65536)).to.not.equal(null);
    const fast = await outcome((o) => readJunitString(sample, 'f.xml', o));
    const sax = await outcome((o) => readJunitStream(once(Buffer.from(sample)), 'f.xml', o));
    expect(fast.cases).to.have.length(3);
    expect(fast).to.deep.equal(sax);
  });

  it('agrees with saxes on 1,500 mutations of it (accepted or refused, cases and errors alike)', async function () {
    this.timeout(60_000);
    let seed = 20_251_123;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % n;
    };
    let accepted = 0;
    let piecewise = 0;
    for (let k = 0; k < 1500; k++) {
      let xml = sample;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(xml.length);
        const piece = pieces[random(pieces.length)] ?? '';
        const op = random(3);
        xml =
          op === 0
            ? xml.slice(0, at) + piece + xml.slice(at)
            : op === 1
              ? xml.slice(0, at) + xml.slice(at + 1 + random(3))
              : xml.slice(0, at) + piece + xml.slice(at + 1);
      }
      // The stream sniffs the declared encoding, readJunitString ignores it: keep it UTF-8.
      if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"')) continue;
      const fast = await outcome((o) => readJunitString(xml, 'f.xml', o));
      const sax = await outcome((o) => readJunitStream(once(Buffer.from(xml)), 'f.xml', o));
      expect(fast, JSON.stringify(xml)).to.deep.equal(sax);
      if (fast.error === undefined) accepted++;
      // In pieces (as big files are read), the scanner takes exactly what it takes whole, with the same report.
      const whole = readPlain(xml, 'f.xml', { maxDetails: 64, maxFailures: 100, onCase: undefined }, 65536);
      const cuts = Array.from({ length: 1 + random(12) }, () => random(xml.length + 1));
      expect(readInPieces(xml, cuts), `${JSON.stringify(xml)} cut at ${cuts}`).to.deep.equal(whole);
      if (whole !== null) piecewise++;
    }
    expect(accepted).to.be.greaterThan(100);
    expect(piecewise).to.be.greaterThan(100);
  });

  it('reads the sample in pieces of every size, one character at a time included', () => {
    const whole = readPlain(sample, 'f.xml', { maxDetails: 64, maxFailures: 100, onCase: undefined }, 65536);
    expect(whole).to.not.equal(null);
    for (const size of [1, 2, 3, 5, 8, 13, 64, 100]) {
      const cuts = Array.from({ length: Math.ceil(sample.length / size) }, (_, i) => i * size);
      expect(readInPieces(sample, cuts), `pieces of ${size}`).to.deep.equal(whole);
    }
  });

  it('reads long text in pieces, not carried whole, and refuses in it what it refuses whole', () => {
    const output = Array.from({ length: 300 }, (_, i) => `line ${i} &amp; &#x41;]] ]]&gt; ${' '.repeat(i % 17)}`).join('\n');
    const doc = (text: string) => `<testsuite name="s"><testcase name="t"><system-out>${text}</system-out></testcase><testcase name="u"/></testsuite>`;
    const documents = [
      doc(output),
      doc(`${output.slice(0, 2000)}]]>${output.slice(2000)}`),
      doc(`${output.slice(0, 4000)}&nope;${output.slice(4000)}`),
      doc(`${output.slice(0, 3000)}&#0;${output.slice(3000)}`),
    ];
    documents.forEach((xml, d) => {
      const whole = readPlain(xml, 'f.xml', { maxDetails: 64, maxFailures: 100, onCase: undefined }, 16);
      expect(whole === null, `document ${d}`).to.equal(d > 0);
      for (const size of [7, 64, 100, 999]) {
        const cuts = Array.from({ length: Math.ceil(xml.length / size) }, (_, i) => i * size);
        // A cap of 16 carries at most 1,056 characters: the 12,000-character output is read in parts.
        expect(readInPieces(xml, cuts, 16), `document ${d}, pieces of ${size}`).to.deep.equal(whole);
      }
    });
  });

  it('gives up on a construct longer than it carries from one piece to the next', () => {
    // Carried up to twice the cap and 1 KiB: 1,056 characters for a cap of 16.
    const long = `<testsuite name="s"><testcase name="t"><!--${'x'.repeat(3000)}--></testcase></testsuite>`;
    const cuts = Array.from({ length: long.length / 10 }, (_, i) => i * 10);
    expect(readInPieces(long, cuts, 16)).to.equal(null);
    expect(readInPieces(long, cuts, 4096)).to.not.equal(null);
  });

  describe('big files (streamed)', () => {
    let dir = '';
    before(() => (dir = mkdtempSync(join(tmpdir(), 'trailproof-plain-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** A report of `cases` test cases (a failure every 7th), over 1 MiB for 20,000; `extra` goes inside the suite. */
    const bigReport = (cases: number, extra = '') =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n<testsuite name="big" tests="${cases}">\n${Array.from({ length: cases }, (_, i) =>
        i % 7 === 0
          ? `  <testcase classname="com.acme.C${i % 13}" name="case ${i} &amp; more" time="0.0${i % 10}"><failure message="boom ${i}">at C.java:${i}\n  at D.java:1</failure></testcase>\n`
          : `  <testcase classname="com.acme.C${i % 13}" name="case ${i}" time="0.0${i % 10}"/>\n`,
      ).join('')}${extra}</testsuite>\n</testsuites>\n`;

    const both = async (name: string, xml: string) => {
      const path = join(dir, name);
      writeFileSync(path, xml);
      expect(Buffer.byteLength(xml)).to.be.greaterThan(1024 * 1024);
      const fromFile = await readJunitFile(path).then(
        (report) => ({ report }),
        (e: Error) => ({ error: e.message }),
      );
      const bySaxes = await readJunitStream(once(Buffer.from(xml)), path).then(
        (report) => ({ report }),
        (e: Error) => ({ error: e.message }),
      );
      return { fromFile, bySaxes };
    };

    it('reads a big plain report as saxes does', async () => {
      const { fromFile, bySaxes } = await both('plain.xml', bigReport(20_000));
      expect(fromFile).to.deep.equal(bySaxes);
      expect((fromFile as { report: { suites: Array<{ total: number; failures: number }> } }).report.suites[0]).to.include({ total: 20_000, failures: 2858 });
    });

    it('has saxes read again from the start a big report that stops being plain near its end, or is broken there', async () => {
      // A processing instruction and a CR are outside the fast path; a second root is not well-formed.
      for (const [name, extra] of [
        ['pi.xml', '<?pi x?>'],
        ['cr.xml', '<testcase name="cr"/>\r\n'],
        ['dtd.xml', '<!DOCTYPE x>'],
      ] as const) {
        const { fromFile, bySaxes } = await both(name, bigReport(20_000, extra));
        expect(fromFile, name).to.deep.equal(bySaxes);
      }
      const broken = await both('broken.xml', bigReport(20_000).replace('</testsuites>', '</testsuite>'));
      expect(broken.fromFile).to.deep.equal(broken.bySaxes);
      expect(broken.fromFile)
        .to.have.property('error')
        .that.matches(/broken\.xml:\d+:\d+: corrupt XML/);
    });
  });
});
