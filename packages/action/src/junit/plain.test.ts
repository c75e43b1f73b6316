/**
 * The plain-XML fast path (internal-plain.ts) against saxes: a whole document (readJunitString,
 * small files) and the same bytes streamed (readJunitStream, always saxes) must give the same
 * report, the same cases through onCase and the same error, for well-formed and broken documents.
 */
import { expect } from 'chai';
import { readJunitStream, readJunitString, type JunitCase, type JunitReadOptions } from './index.ts';
import { readPlain } from './internal-plain.ts';

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
  '<', '>', '&', ';', '"', "'", '/', '!', '-', '?', ']', '[', '=', ' ', '\n', '\r', '\t', 'a', ':', '#', 'x', 'é',
  '\u0001', '\uFFFE', '&#0;', '&#x110000;', '&foo;', '&#X41;', '<!DOCTYPE a>', '<?pi x?>', ']]>', '--', '<!---->', 'CDATA',
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
    for (let k = 0; k < 1500; k++) {
      let xml = sample;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(xml.length);
        const piece = pieces[random(pieces.length)] ?? '';
        const op = random(3);
        xml = op === 0 ? xml.slice(0, at) + piece + xml.slice(at) : op === 1 ? xml.slice(0, at) + xml.slice(at + 1 + random(3)) : xml.slice(0, at) + piece + xml.slice(at + 1);
      }
      // The stream sniffs the declared encoding, readJunitString ignores it: keep it UTF-8.
      if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"')) continue;
      const fast = await outcome((o) => readJunitString(xml, 'f.xml', o));
      const sax = await outcome((o) => readJunitStream(once(Buffer.from(xml)), 'f.xml', o));
      expect(fast, JSON.stringify(xml)).to.deep.equal(sax);
      if (fast.error === undefined) accepted++;
    }
    expect(accepted).to.be.greaterThan(100);
  });
});
