/**
 * Dialect rules of the JUnit reader (packages/action/README.md, "JUnit reader rules"), one small
 * document per rule.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as reader from './index.ts';
import { JunitReadError, summarize, type JunitCase, type JunitFileReport, type JunitReadOptions } from './index.ts';

/** A report with every case, collected through `onCase` (the report itself keeps only failures). */
type WithCases = JunitFileReport & { cases: JunitCase[] };
async function withCases(read: (options: JunitReadOptions) => Promise<JunitFileReport>, options?: JunitReadOptions): Promise<WithCases> {
  const cases: JunitCase[] = [];
  const report = await read({ ...options, onCase: (c) => cases.push(c) });
  return { ...report, cases };
}
const readJunitFile = (path: string, options?: JunitReadOptions) => withCases((o) => reader.readJunitFile(path, o), options);
const readJunitStream = (stream: AsyncIterable<Uint8Array>, file: string, options?: JunitReadOptions) =>
  withCases((o) => reader.readJunitStream(stream, file, o), options);
const readJunitString = (xml: string, file?: string, options?: JunitReadOptions) => withCases((o) => reader.readJunitString(xml, file, o), options);

const fixture = (name: string): string => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function fromBytes(bytes: Uint8Array, size = 64 * 1024, file = 'test.xml'): Promise<WithCases> {
  return readJunitStream(chunks(bytes, size), file);
}

async function rejection(p: Promise<unknown>): Promise<JunitReadError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(JunitReadError);
    return e as JunitReadError;
  }
  throw new Error('expected a JunitReadError');
}

/** One suite "s" holding the given case elements. */
const suite = (cases: string, attrs = ''): string => `<testsuite name="s"${attrs}>${cases}</testsuite>`;

describe('JUnit reader: dialect rules', () => {
  describe('encodings', () => {
    const body = (decl: string): string => `${decl}<testsuite name="Süße €"><testcase classname="Ça" name="naïve “quoted”"/></testsuite>`;

    it('reads UTF-8 without a declaration, and with one', async () => {
      for (const decl of ['', '<?xml version="1.0"?>\n', '<?xml version="1.0" encoding="UTF-8"?>\n']) {
        const r = await fromBytes(Buffer.from(body(decl), 'utf8'));
        expect(r.cases[0]).to.include({ className: 'Ça', name: 'naïve “quoted”', suiteName: 'Süße €' });
      }
    });

    it('reads UTF-8 with a byte order mark', async () => {
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body('<?xml version="1.0" encoding="utf-8"?>'), 'utf8')]);
      expect((await fromBytes(bytes)).cases[0]?.name).to.equal('naïve “quoted”');
    });

    const utf16le = (xml: string): Buffer => Buffer.from(xml, 'utf16le');
    const utf16be = (xml: string): Buffer => Buffer.from(xml, 'utf16le').swap16();
    const cases16: [string, Buffer][] = [
      ['UTF-16 LE with BOM', utf16le(`\ufeff${body('<?xml version="1.0" encoding="UTF-16"?>')}`)],
      ['UTF-16 BE with BOM', utf16be(`\ufeff${body('<?xml version="1.0" encoding="UTF-16"?>')}`)],
      ['UTF-16 LE without BOM', utf16le(body('<?xml version="1.0" encoding="UTF-16"?>'))],
      ['UTF-16 BE without BOM', utf16be(body('<?xml version="1.0" encoding="UTF-16"?>'))],
    ];
    for (const [label, bytes] of cases16) {
      it(`reads ${label}, also one byte at a time`, async () => {
        for (const size of [64 * 1024, 1]) {
          const r = await fromBytes(bytes, size);
          expect(r.cases[0]).to.include({ className: 'Ça', name: 'naïve “quoted”', suiteName: 'Süße €' });
        }
      });
    }

    it('reads ISO-8859-1 (and its aliases latin1, latin-1) from the declaration', async () => {
      for (const enc of ['ISO-8859-1', 'latin1', 'Latin-1', 'iso_8859-1']) {
        const xml = `<?xml version="1.0" encoding="${enc}"?><testsuite name="Süß"><testcase classname="Ça" name="naïve"/></testsuite>`;
        const r = await fromBytes(Buffer.from(xml, 'latin1'), 7);
        expect(r.cases[0], enc).to.include({ className: 'Ça', name: 'naïve', suiteName: 'Süß' });
      }
    });

    it('reads ISO-8859-15 (latin9): byte A4 is the euro sign', async () => {
      for (const enc of ['ISO-8859-15', 'latin9', 'LATIN-9']) {
        const xml = `<?xml version='1.0' encoding='${enc}'?><testsuite><testcase classname="c" name="price \u00a4 \u00e9"/></testsuite>`;
        expect((await fromBytes(Buffer.from(xml, 'latin1'))).cases[0]?.name, enc).to.equal('price € é');
      }
    });

    it('reads windows-1252: bytes 80, 93, 94 are € “ ”', async () => {
      const xml = `<?xml version="1.0" encoding="windows-1252"?><testsuite><testcase classname="c" name="\u0080 \u0093q\u0094"/></testsuite>`;
      expect((await fromBytes(Buffer.from(xml, 'latin1'))).cases[0]?.name).to.equal('€ “q”');
    });

    it('decodes UTF-8 split anywhere, one byte per chunk', async () => {
      const r = await fromBytes(Buffer.from(body('<?xml version="1.0" encoding="UTF-8"?>'), 'utf8'), 1);
      expect(r.cases[0]).to.include({ name: 'naïve “quoted”', suiteName: 'Süße €' });
    });

    it('refuses an encoding it cannot decode, and UTF-32', async () => {
      const err = await rejection(fromBytes(Buffer.from('<?xml version="1.0" encoding="x-klingon"?><testsuite/>')));
      expect(err).to.include({ kind: 'corrupt', line: 1 });
      expect(err.message).to.include('x-klingon');
      const utf32 = Buffer.from([0xff, 0xfe, 0, 0, 0x3c, 0, 0, 0]);
      expect((await rejection(fromBytes(utf32))).message).to.include('UTF-32');
    });

    it('reads a UTF-16 declaration on 8-bit bytes as UTF-8, and invalid bytes as U+FFFD', async () => {
      const xml = '<?xml version="1.0" encoding="UTF-16"?><testsuite><testcase classname="c" name="é"/></testsuite>';
      expect((await fromBytes(Buffer.from(xml, 'utf8'))).cases[0]?.name).to.equal('é');
      const bad = Buffer.concat([Buffer.from('<testsuite><testcase classname="c" name="a'), Buffer.from([0xff]), Buffer.from('b"/></testsuite>')]);
      expect((await fromBytes(bad)).cases[0]?.name).to.equal('a\ufffdb');
    });

    it('readJunitString takes already-decoded text and ignores the declared encoding', async () => {
      const r = await readJunitString('\ufeff<?xml version="1.0" encoding="ISO-8859-1"?><testsuite><testcase classname="c" name="é€"/></testsuite>');
      expect(r.cases[0]?.name).to.equal('é€');
      expect(r.file).to.equal('<string>');
    });
  });

  describe('DOCTYPE and entities', () => {
    it('refuses a DOCTYPE', async () => {
      const err = await rejection(readJunitString('<?xml version="1.0"?>\n<!DOCTYPE testsuites>\n<testsuites/>', 'd.xml'));
      expect(err).to.include({ kind: 'corrupt', line: 2, file: 'd.xml' });
      expect(err.message).to.match(/DOCTYPE and entity declarations are not allowed/);
    });

    it('refuses entity declarations (billion laughs) without expanding anything', async () => {
      const lol = [
        '<?xml version="1.0"?>',
        '<!DOCTYPE lolz [',
        ' <!ENTITY lol "lol">',
        ...Array.from({ length: 9 }, (_, i) => ` <!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
        ']>',
        '<testsuite name="&lol9;"><testcase classname="c" name="&lol9;"/></testsuite>',
      ].join('\n');
      const started = Date.now();
      const err = await rejection(fromBytes(Buffer.from(lol)));
      expect(err.kind).to.equal('corrupt');
      expect(err.message).to.match(/DOCTYPE and entity declarations are not allowed/);
      expect(Date.now() - started).to.be.lessThan(2000);
    });

    it('refuses an undeclared entity reference', async () => {
      const err = await rejection(readJunitString('<testsuite><testcase classname="c" name="&nbsp;"/></testsuite>'));
      expect(err.kind).to.equal('corrupt');
    });

    it('decodes the five predefined entities and numeric character references', async () => {
      const r = await readJunitString('<testsuite><testcase classname="&lt;&gt;" name="&amp; &quot;x&quot; &apos;y&apos; &#233;&#xE9;&#x1F600;"/></testsuite>');
      expect(r.cases[0]).to.include({ className: '<>', name: '& "x" \'y\' éé😀' });
    });
  });

  describe('roots and suites', () => {
    it('accepts a <testsuite> root and a <testsuites> root', async () => {
      expect((await readJunitString('<testsuite name="a"><testcase classname="c" name="t"/></testsuite>')).suites[0]?.name).to.equal('a');
      expect((await readJunitString('<testsuites><testsuite name="b"><testcase classname="c" name="t"/></testsuite></testsuites>')).suites[0]?.name).to.equal(
        'b',
      );
    });

    it('rejects any other root as not-junit (a Maven failsafe-summary.xml), naming file and line', async () => {
      const path = fixture('failsafe-summary.xml');
      const err = await rejection(readJunitFile(path));
      expect(err).to.include({ kind: 'not-junit', line: 2, file: path });
      expect(err.message).to.include(path).and.include('failsafe-summary');
    });

    it('stops reading a non-JUnit stream at its root element', async () => {
      let pulled = 0;
      let closed = false;
      async function* endless(): AsyncGenerator<Buffer> {
        try {
          yield Buffer.from('<report><item/>');
          for (;;) {
            pulled++;
            yield Buffer.from('<item/>'.repeat(1000));
          }
        } finally {
          closed = true;
        }
      }
      expect((await rejection(readJunitStream(endless(), 'r.xml'))).kind).to.equal('not-junit');
      expect(pulled).to.be.lessThan(2);
      expect(closed).to.equal(true);
    });

    it('reads suites nested at any depth: one entry per suite holding cases, every suite declared (innermost first)', async () => {
      const xml = `<testsuites><testsuite name="a" tests="4">
          <testsuite name="b"><testsuite name="c"><testsuite name="d">
            <testcase classname="k" name="t1" time="1"><failure/></testcase>
          </testsuite></testsuite><testcase classname="k" name="t2" time="2"/></testsuite>
          <testcase classname="k" name="t3" time="3"><skipped/></testcase>
        </testsuite></testsuites>`;
      const r = await readJunitString(xml);
      expect(r.cases.map((c) => [c.name, c.suiteName])).to.deep.equal([
        ['t1', 'd'],
        ['t2', 'b'],
        ['t3', 'a'],
      ]);
      expect(r.suites.map((s) => [s.name, s.total, s.failures, s.skipped])).to.deep.equal([
        ['d', 1, 1, 0],
        ['b', 1, 0, 0],
        ['a', 1, 0, 1],
      ]);
      // Undeclared counts come from all cases inside, nested suites included.
      expect(r.declared).to.deep.equal([
        { name: 'd', tests: 1, skipped: 0, failures: 1, errors: 0 },
        { name: 'c', tests: 1, skipped: 0, failures: 1, errors: 0 },
        { name: 'b', tests: 2, skipped: 0, failures: 1, errors: 0 },
        { name: 'a', tests: 4, skipped: 1, failures: 1, errors: 0 },
      ]);
    });

    it('falls back to counts from the cases for each count attribute missing or unreadable', async () => {
      const r = await readJunitString(
        suite('<testcase classname="c" name="t"><failure/></testcase><testcase classname="c" name="u"><skipped/></testcase>', ' tests="5" skipped="x"'),
      );
      expect(r.declared).to.deep.equal([{ name: 's', tests: 5, skipped: 1, failures: 1, errors: 0 }]);
    });

    it('gives a suite with declared counts but no cases an entry with those counts; an empty one or a wrapper none', async () => {
      const xml = `<testsuites>
        <testsuite name="declared" tests="6" failures="1" errors="2" skipped="3" time="1.5" timestamp="2024-01-01T00:00:00Z"/>
        <testsuite name="empty" tests="0"/>
        <testsuite name="wrapper" tests="1"><testsuite name="inner"><testcase classname="c" name="t"/></testsuite></testsuite>
      </testsuites>`;
      const r = await readJunitString(xml);
      expect(r.suites).to.deep.equal([
        { name: 'declared', timestamp: 1704067200, total: 6, failures: 1, errors: 2, skipped: 3, duration: 1.5, flaky: 0 },
        { name: 'inner', timestamp: null, total: 1, failures: 0, errors: 0, skipped: 0, duration: 0, flaky: 0 },
      ]);
      expect(r.declared.map((d) => d.name)).to.deep.equal(['declared', 'empty', 'inner', 'wrapper']);
    });

    it('puts cases directly under <testsuites> into a suite named after the file', async () => {
      const xml = `<testsuites timestamp="2024-01-01T00:00:00Z"><testcase classname="c" name="loose" time="2"><error/></testcase>
        <testsuite name="s"><testcase classname="c" name="inside"/></testsuite></testsuites>`;
      const r = await readJunitString(xml, 'build/reports/TEST-all.xml');
      expect(r.cases.map((c) => c.suiteName)).to.deep.equal(['TEST-all.xml', 's']);
      expect(r.suites).to.deep.equal([
        { name: 's', timestamp: 1704067200, total: 1, failures: 0, errors: 0, skipped: 0, duration: 0, flaky: 0 },
        { name: 'TEST-all.xml', timestamp: 1704067200, total: 1, failures: 0, errors: 1, skipped: 0, duration: 2, flaky: 0 },
      ]);
      expect(r.declared).to.deep.equal([{ name: 's', tests: 1, skipped: 0, failures: 0, errors: 0 }]);
    });

    it('names a suite without a name after the file; its declared name is null', async () => {
      const r = await readJunitString('<testsuite><testcase classname="c" name="t"/></testsuite>', '/tmp/x/results.xml');
      expect(r.suites[0]?.name).to.equal('results.xml');
      expect(r.cases[0]?.suiteName).to.equal('results.xml');
      expect(r.declared[0]?.name).to.equal(null);
    });

    it('duration: the suite time attribute, else the sum of its case times', async () => {
      const r = await readJunitString(`<testsuites>${suite('<testcase classname="c" name="a" time="1"/>', ' time="9.5"')}
        <testsuite name="t"><testcase classname="c" name="a" time="1.25"/><testcase classname="c" name="b"/><testcase classname="c" name="c" time="2"/></testsuite></testsuites>`);
      expect(r.suites.map((s) => s.duration)).to.deep.equal([9.5, 3.25]);
    });

    it('counts cases without name and class name in the suite but does not list them', async () => {
      const r = await readJunitString(suite('<testcase><failure/></testcase><testcase classname="c" name="t"/>'));
      expect(r.cases.map((c) => c.name)).to.deep.equal(['t']);
      expect(r.suites[0]).to.include({ total: 2, failures: 1 });
    });

    it('ignores namespace prefixes and elements it does not know', async () => {
      const r = await readJunitString(
        '<j:testsuite xmlns:j="urn:x"><properties><property name="a" value="b"/></properties><j:testcase classname="c" name="t"><j:failure message="m"/></j:testcase><foo><bar/></foo></j:testsuite>',
      );
      expect(r.cases[0]).to.include({ name: 't', outcome: 'failure', message: 'm' });
    });
  });

  describe('outcomes', () => {
    it('the most severe child decides: error > failure > skipped > success, in any order', async () => {
      const r = await readJunitString(
        suite(`
        <testcase classname="c" name="e1"><skipped/><error message="E"/><failure message="F"/></testcase>
        <testcase classname="c" name="f1"><failure message="F1"/><skipped message="S"/><failure message="F2"/></testcase>
        <testcase classname="c" name="s1"><skipped message="S"/><system-out>out</system-out></testcase>
        <testcase classname="c" name="ok"><system-err>err</system-err></testcase>`),
      );
      expect(r.cases.map((c) => [c.name, c.outcome, c.message])).to.deep.equal([
        ['e1', 'error', 'E'],
        ['f1', 'failure', 'F1'],
        ['s1', 'skipped', 'S'],
        ['ok', 'success', undefined],
      ]);
    });

    it('status disabled / skipped / notrun / ignored (and similar) count as skipped; other statuses do not decide', async () => {
      const statuses = ['disabled', 'skipped', 'SKIP', 'notrun', 'not run', 'not_run', 'ignored', 'pending', 'passed', 'run', 'failed'];
      const r = await readJunitString(suite(statuses.map((s) => `<testcase classname="c" name="${s}" status="${s}"/>`).join('')));
      expect(r.cases.map((c) => c.outcome)).to.deep.equal([...Array(8).fill('skipped'), 'success', 'success', 'success']);
      const withFailure = await readJunitString(suite('<testcase classname="c" name="t" status="disabled"><failure/></testcase>'));
      expect(withFailure.cases[0]?.outcome).to.equal('failure');
    });

    it('Surefire reruns: flakyFailure/flakyError pass (flaky), rerunFailure/rerunError fail', async () => {
      const r = await readJunitFile(fixture('surefire-rerun.xml'));
      expect(r.cases.map((c) => [c.name, c.outcome, c.flaky, c.message])).to.deep.equal([
        ['passesOnRerun', 'success', true, 'expected: <1> but was: <2>'],
        ['failsEveryTime', 'failure', false, 'boom'],
        ['errorsOnRerun', 'error', false, 'npe'],
        ['passes', 'success', false, undefined],
      ]);
      expect(r.cases[0]?.details).to.equal(
        'org.opentest4j.AssertionFailedError: expected: <1> but was: <2>\n\tat com.example.FlakyTest.passesOnRerun(FlakyTest.java:12)',
      );
      expect(r.cases[1]?.details).to.equal('java.lang.AssertionError: boom\n\tat com.example.FlakyTest.failsEveryTime(FlakyTest.java:20)');
      expect(r.suites[0]).to.include({ total: 4, failures: 1, errors: 1, skipped: 0, flaky: 1, duration: 0.35 });
      expect(r.suites[0]?.timestamp).to.be.closeTo(Date.UTC(2024, 2, 1, 9, 15, 30, 250) / 1000, 1e-9);
      const flakyError = await readJunitString(suite('<testcase classname="c" name="t"><flakyError message="x"/></testcase>'));
      expect(flakyError.cases[0]).to.include({ outcome: 'success', flaky: true, message: 'x' });
    });
  });

  describe('time', () => {
    const times: [string | null, number | null][] = [
      ['1.5', 1.5],
      ['2', 2],
      ['.25', 0.25],
      ['1e-3', 0.001],
      [' 3.5 ', 3.5],
      ['1,234.5', 1234.5],
      ['1,234,567', 1234567],
      ['12,345.678', 12345.678],
      ['1,5', 1.5],
      ['0,123', 0.123],
      ['12,5', 12.5],
      ['1234,5', 1234.5],
      ['1.234,5', 1234.5],
      ['1.234.567', 1234567],
      ['01:02:03.5', 3723.5],
      ['02:03', 123],
      ['1,234', null],
      ['', null],
      [null, null],
      ['abc', null],
      ['1.5s', null],
      ['-1', null],
      ['1,2,3', null],
      ['NaN', null],
    ];
    it('reads decimals, thousands separators, unambiguous decimal commas; anything else is null', async () => {
      const r = await readJunitString(suite(times.map(([t], i) => `<testcase classname="c" name="t${i}"${t === null ? '' : ` time="${t}"`}/>`).join('')));
      times.forEach(([raw, want], i) => {
        const got = r.cases[i]?.time;
        if (want === null) expect(got, String(raw)).to.equal(null);
        else expect(got, String(raw)).to.be.closeTo(want, 1e-9);
      });
    });
  });

  describe('timestamp', () => {
    const base = Date.UTC(2020, 8, 1, 7, 11, 23) / 1000; // 2020-09-01T07:11:23Z, a Tuesday
    const forms: [string, number | null][] = [
      ['2020-09-01T07:11:23Z', base],
      ['2020-09-01T07:11:23z', base],
      ['2020-09-01T07:11:23', base],
      ['2020-09-01t07:11:23', base],
      ['2020-09-01 07:11:23', base],
      ['2020-09-01T07:11:23.815873', base + 0.815873],
      ['2020-09-01T07:11:23,5Z', base + 0.5],
      ['2020-09-01T09:11:23+02:00', base],
      ['2020-09-01T09:11:23+0200', base],
      ['2020-09-01T09:11:23+02', base],
      ['2020-09-01T01:41:23.25-05:30', base + 0.25],
      ['2020-09-01 07:11:23 +0000', base],
      ['20200901T071123Z', base],
      ['20200901T0711', base - 23],
      ['2020-09-01T07:11', base - 23],
      ['2020-09-01T07', base - 11 * 60 - 23],
      ['2020-09-01T07.5', base - 11 * 60 - 23 + 1800],
      ['2020-09-01', Date.UTC(2020, 8, 1) / 1000],
      ['20200901', Date.UTC(2020, 8, 1) / 1000],
      ['2020-09', Date.UTC(2020, 8, 1) / 1000],
      ['2020-245T07:11:23Z', base],
      ['2020-W36-2T07:11:23Z', base],
      ['2020W362T071123Z', base],
      ['2020-09-01T24:00:00', Date.UTC(2020, 8, 2) / 1000],
      ['1969-12-31T23:59:59Z', -1],
      ['2020-02-30T00:00:00', null],
      ['2020-13-01T00:00:00', null],
      ['2020-09-01T25:00:00', null],
      ['2020-09-01T07:11:23+25:00', null],
      ['2020-09-01Z', null],
      ['1598944283', null],
      ['yesterday', null],
      ['', null],
    ];
    it('reads every ISO 8601 form to epoch seconds (zone-less is UTC); unreadable is null', async () => {
      const xml = `<testsuites>${forms.map(([ts], i) => `<testsuite name="s${i}" timestamp="${ts}"><testcase classname="c" name="t"/></testsuite>`).join('')}</testsuites>`;
      const r = await readJunitString(xml);
      forms.forEach(([raw, want], i) => {
        const got = r.suites[i]?.timestamp;
        if (want === null) expect(got, raw).to.equal(null);
        else expect(got, raw).to.be.closeTo(want, 1e-6);
      });
    });

    it('a suite without a (readable) timestamp inherits the enclosing one', async () => {
      const xml = `<testsuites timestamp="2021-01-01T00:00:00Z">
        <testsuite name="outer" timestamp="2022-01-01T00:00:00Z">
          <testsuite name="inherits"><testcase classname="c" name="t"/></testsuite>
          <testsuite name="garbage" timestamp="soon"><testcase classname="c" name="t"/></testsuite>
          <testsuite name="own" timestamp="2023-01-01T00:00:00Z"><testcase classname="c" name="t"/></testsuite>
        </testsuite>
        <testsuite name="from-root"><testcase classname="c" name="t"/></testsuite>
      </testsuites>`;
      const r = await readJunitString(xml);
      const ts = Object.fromEntries(r.suites.map((s) => [s.name, s.timestamp]));
      expect(ts).to.deep.equal({ inherits: 1640995200, garbage: 1640995200, own: 1672531200, 'from-root': 1609459200 });
      expect((await readJunitString(suite('<testcase classname="c" name="t"/>'))).suites[0]?.timestamp).to.equal(null);
    });
  });

  it("keeps a case's file and line attributes (pytest, Jest, PHPUnit, Go write them); a line that is not a positive integer is dropped", async () => {
    const r = await readJunitString(
      suite(
        '<testcase classname="tests.test_vat" name="test_rate" file="tests/test_vat.py" line="42"><failure message="boom"/></testcase>' +
          '<testcase classname="c" name="u" file="" line="0"/><testcase classname="c" name="v" line="12a"/>',
      ),
    );
    expect(r.cases.map((c) => [c.file, c.line])).to.deep.equal([
      ['tests/test_vat.py', 42],
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(r.failures[0]).to.include({ file: 'tests/test_vat.py', line: 42, message: 'boom' });
  });

  describe('corrupt XML', () => {
    it('names the file and the 1-based line of a mismatched tag', async () => {
      const xml = '<?xml version="1.0"?>\n<testsuite>\n  <testcase classname="c" name="t">\n    <failure>\n  </testcase>\n</testsuite>\n';
      const err = await rejection(fromBytes(Buffer.from(xml), 5, 'reports/bad.xml'));
      expect(err).to.include({ kind: 'corrupt', line: 5, file: 'reports/bad.xml' });
      expect(err.message).to.match(/^reports\/bad\.xml:5:\d+: corrupt XML: /);
    });

    it('says what was wrong, with the column, in words a developer reads (not saxes\'s "disallowed character")', async () => {
      const cases: Array<[string, RegExp | string, number, number]> = [
        ['<testsuite>\n  <testcase name="a<b"/>\n</testsuite>', "'<' not allowed in an attribute value (write it as &lt;)", 2, 21],
        ['<testsuite name="R&D"/>', "'&' without the ';' that ends an entity reference (write a literal '&' as &amp;)", 1, 24],
        ['<testsuite>&nbsp;</testsuite>', "undefined entity '&nbsp;'", 1, 18],
        ['<testsuite><testcase name="t"></testsuite>', 'close tag </testsuite> where </testcase> was expected', 1, 43],
        ['<testsuite>\u0001</testsuite>', 'character U+0001 not allowed in XML 1.0', 1, 13],
        ['<testsuite>\n<testcase name="t">', 'the document ends before </testcase> (the file may be cut short)', 2, 20],
      ];
      for (const [xml, reason, line, column] of cases) {
        const err = await rejection(readJunitString(xml, 'r.xml'));
        expect(err, xml).to.include({ kind: 'corrupt', line, column });
        expect(err.message, xml).to.contain(`r.xml:${line}:${column}: corrupt XML: ${reason}`);
      }
    });

    it('reports a premature end at the last line', async () => {
      const err = await rejection(readJunitString('<testsuites>\n<testsuite>\n<testcase classname="c" name="t">\n<skipped', 'cut.xml'));
      expect(err).to.include({ kind: 'corrupt', line: 4 });
      expect(err.message).to.include('cut.xml');
    });

    it('rejects empty input and non-XML text', async () => {
      expect((await rejection(fromBytes(new Uint8Array(0)))).kind).to.equal('corrupt');
      expect((await rejection(readJunitString('just some text'))).kind).to.equal('corrupt');
    });

    it('refuses elements nested deeper than 10,000 and more than 10,000 attributes on one element', async () => {
      const deep = `<testsuite>${'<x>'.repeat(10_000)}${'</x>'.repeat(10_000)}</testsuite>`;
      const err = await rejection(readJunitString(deep, 'deep.xml'));
      expect(err.kind).to.equal('corrupt');
      expect(err.message).to.match(/^deep\.xml:1:.*nested deeper than 10000/);
      const ok = `<testsuite>${'<x>'.repeat(9_000)}${'</x>'.repeat(9_000)}<testcase classname="c" name="t"/></testsuite>`;
      expect((await readJunitString(ok)).cases).to.have.length(1);
      const attrs = Array.from({ length: 10_001 }, (_, i) => ` a${i}="v"`).join('');
      expect((await rejection(readJunitString(`<testsuite><testcase${attrs}/></testsuite>`))).message).to.match(/attributes/);
    });

    it('keeps a huge attribute value bounded (cut, not refused)', async () => {
      const big = 'm'.repeat(3_000_000);
      const r = await readJunitString(suite(`<testcase classname="c" name="t"><failure message="${big}"/></testcase>`));
      expect(r.cases[0]?.message).to.equal('m'.repeat(4096));
    });

    it('lets file-system errors through', async () => {
      let error: unknown;
      try {
        await readJunitFile(fixture('does-not-exist.xml'));
      } catch (e) {
        error = e;
      }
      expect(error).to.have.property('code', 'ENOENT');
    });
  });

  describe('message and details', () => {
    it('keeps the deciding element message and text, without system-out/system-err', async () => {
      const r = await readJunitString(
        suite(`<testcase classname="c" name="t">
          <skipped message="not this">nor this</skipped>
          <failure message="bad" type="AssertionError">
            line 1
            <![CDATA[line <2>]]> &amp; more
            <system-out>never</system-out>
          </failure>
          <system-out>case output</system-out>
        </testcase>`),
      );
      expect(r.cases[0]?.message).to.equal('bad');
      expect(r.cases[0]?.details).to.equal('line 1\n            line <2> & more');
    });

    it('truncates message and details to maxDetailsLength (default 4096) while streaming', async () => {
      const long = 'x'.repeat(10_000);
      const xml = suite(`<testcase classname="c" name="t"><error message="${long}">${long}<![CDATA[${long}]]>${long}</error></testcase>`);
      const def = await readJunitString(xml);
      expect(def.cases[0]?.message).to.have.length(4096);
      expect(def.cases[0]?.details).to.have.length(4096);
      const small = await readJunitStream(chunks(Buffer.from(xml), 1000), 'x.xml', { maxDetailsLength: 100 });
      expect(small.cases[0]?.message).to.equal('x'.repeat(100));
      expect(small.cases[0]?.details).to.equal('x'.repeat(100));
    });

    it('does not cut a surrogate pair in half', async () => {
      const r = await readJunitString(suite('<testcase classname="c" name="t"><failure message="ab😀">ab😀c</failure></testcase>'), 'f', {
        maxDetailsLength: 3,
      });
      expect(r.cases[0]).to.include({ message: 'ab', details: 'ab' });
    });

    it('refuses a bad maxDetailsLength', async () => {
      let error: unknown;
      try {
        await readJunitString('<testsuite/>', 'f', { maxDetailsLength: -1 });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(RangeError);
    });
  });

  describe('what the report keeps', () => {
    const many = suite(
      Array.from({ length: 250 }, (_, i) =>
        i % 2
          ? `<testcase classname="c" name="t${i}"/>`
          : `<testcase classname="c" name="t${i}"><${i % 4 ? 'error' : 'failure'} message="m${i}">trace ${i}</${i % 4 ? 'error' : 'failure'}></testcase>`,
      ).join(''),
    );

    it('by default: the suites and the first 100 failed or errored cases; the rest only counted', async () => {
      const r = await reader.readJunitString(many);
      expect(r).to.not.have.property('cases');
      expect(r.suites[0]).to.include({ total: 250, failures: 63, errors: 62 });
      expect(r.failures.map((c) => c.name)).to.deep.equal(Array.from({ length: 100 }, (_, i) => `t${2 * i}`));
      expect(r.failures[1]).to.include({ outcome: 'error', message: 'm2', details: 'trace 2' });
      expect(r.moreFailures).to.equal(25);
    });

    it('maxFailures sets how many are kept; onCase is given every listed case in document order', async () => {
      const seen: string[] = [];
      const r = await reader.readJunitString(many, 'f', { maxFailures: 3, onCase: (c) => seen.push(`${c.name}:${c.outcome}`) });
      expect(r.failures.map((c) => c.name)).to.deep.equal(['t0', 't2', 't4']);
      expect(r.moreFailures).to.equal(122);
      expect(seen).to.have.length(250);
      expect(seen.slice(0, 3)).to.deep.equal(['t0:failure', 't1:success', 't2:error']);
      // With onCase, every case has its message and details, kept or not.
      const last: JunitCase[] = [];
      await reader.readJunitString(many, 'f', { maxFailures: 0, onCase: (c) => last.push(c) });
      expect(last[248]).to.include({ name: 't248', outcome: 'failure', message: 'm248', details: 'trace 248' });
    });

    it('an error thrown by onCase ends the read and comes out as it is', async () => {
      const boom = new Error('stop here');
      let error: unknown;
      await reader
        .readJunitString(many, 'f', {
          onCase: () => {
            throw boom;
          },
        })
        .catch((e: unknown) => (error = e));
      expect(error).to.equal(boom);
    });

    it('refuses a bad maxFailures', async () => {
      const error = await reader.readJunitString('<testsuite/>', 'f', { maxFailures: 1.5 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(RangeError).and.have.property('message', 'maxFailures must be a non-negative integer, got 1.5');
    });
  });

  describe('summarize', () => {
    it('totals the suites of several files', async () => {
      const a = await readJunitFile(fixture('surefire-rerun.xml'));
      const b = await readJunitString('<testsuite name="b" tests="5" failures="1" skipped="1" time="2"/>');
      const t = summarize([a, b]);
      expect(t).to.include({ suites: 2, total: 9, passed: 5, failed: 2, errors: 1, skipped: 1, flaky: 1 });
      expect(t.duration).to.be.closeTo(2.35, 1e-9);
      expect(summarize([])).to.deep.equal({ suites: 0, total: 0, passed: 0, failed: 0, errors: 0, skipped: 0, flaky: 0, duration: 0 });
    });
  });

  describe('memory', () => {
    /** A forced garbage collection (exposed at run time) so the baseline is not inflated. */
    function collect(): void {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as (() => void) | undefined;
      gc?.();
    }

    it('streams a generated ~50MB report with RSS growth under 100MB', async function () {
      this.timeout(300_000);
      collect();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      let produced = 0;
      const line = `${'0123456789abcdef'.repeat(63)}<\n`.replace('<', '&lt;');
      const block = Buffer.from(line.repeat(64));
      const casesXml = Buffer.from(
        Array.from(
          { length: 100 },
          (_, i) =>
            `<testcase classname="com.example.Class${i % 7}" name="test number ${i} with a fairly long name" time="0.0${i}">` +
            `<failure message="assertion ${i} failed" type="AssertionError">${'at com.example.Some.method(Some.java:42)\n'.repeat(10)}</failure>` +
            '<system-out>some output of the test\n</system-out></testcase>',
        ).join(''),
      );

      async function* generate(): AsyncGenerator<Buffer> {
        const emit = (b: Buffer): Buffer => {
          produced += b.length;
          if (produced % (1 << 20) < b.length) peak = Math.max(peak, process.memoryUsage().rss);
          return b;
        };
        yield emit(Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n<testsuite name="big" timestamp="2024-01-01T00:00:00Z">\n'));
        // ~15MB of CDATA system-out, one section.
        yield emit(Buffer.from('<testcase classname="c" name="logs"/><system-out><![CDATA['));
        for (let i = 0; i < 230; i++) yield emit(block);
        yield emit(Buffer.from(']]></system-out>\n'));
        // A failure whose body is one ~10MB text node.
        yield emit(Buffer.from('<testcase classname="c" name="huge-failure"><failure message="huge">'));
        for (let i = 0; i < 150; i++) yield emit(block);
        yield emit(Buffer.from('</failure></testcase>\n<system-err>'));
        // ~10MB of text in system-err.
        for (let i = 0; i < 150; i++) yield emit(block);
        yield emit(Buffer.from('</system-err>\n'));
        // ~15MB of test cases.
        while (produced < 50 * 1024 * 1024) yield emit(casesXml);
        yield emit(Buffer.from('</testsuite>\n</testsuites>\n'));
      }

      const report = await readJunitStream(generate(), 'big.xml');
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(produced).to.be.greaterThan(50 * 1024 * 1024);
      const growthMB = (peak - baseline) / (1 << 20);
      expect(growthMB, `RSS grew by ${growthMB.toFixed(1)}MB`).to.be.lessThan(100);
      expect(report.cases[1]).to.include({ name: 'huge-failure', outcome: 'failure', message: 'huge' });
      expect(report.cases[1]?.details).to.have.length(4096);
      expect(report.cases.length).to.be.greaterThan(10_000);
      expect(report.suites[0]?.total).to.equal(report.cases.length);
    });

    it('by default keeps memory flat however many test cases: 250,000 and 1,000,000 cases, 6% failing with stack traces', function () {
      this.timeout(300_000);
      // Each run in a fresh process, so that only the reader's memory is measured (test/memory-probe.ts).
      // The young generation pinned at Node 20's default (16MB a semi-space): Node 24's V8 grows it
      // further, which added about 30MB of garbage to the RSS at 1,000,000 cases.
      const probe = fileURLToPath(new URL('../../test/memory-probe.ts', import.meta.url));
      const measure = (blocks: number) => {
        const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--max-semi-space-size=16', probe, 'plain', String(blocks)], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        });
        expect(run.status, run.stderr).to.equal(0);
        const result = JSON.parse(run.stdout) as {
          baseline: number;
          peak: number;
          produced: number;
          suites: JunitFileReport['suites'];
          failures: number;
          firstFailure: JunitCase;
          moreFailures: number;
        };
        expect(result.produced).to.be.greaterThan(blocks * 18_000);
        expect(result.suites).to.have.length(1);
        expect(result.suites[0]).to.include({ total: blocks * 100, failures: blocks * 5, errors: blocks });
        expect(result.failures).to.equal(100);
        expect(result.firstFailure).to.include({ name: 'shouldHandleRequest0', message: 'expected 200 (case 0)' });
        expect(result.moreFailures).to.equal(blocks * 6 - 100);
        return (result.peak - result.baseline) / (1 << 20);
      };
      const quarter = measure(2_500);
      const million = measure(10_000);
      // Keeping every case costs about 100MB per 250,000 of them here (test/memory-probe.ts collect);
      // the default report's growth is the garbage collector's slack, and does not grow with them.
      expect(quarter, `RSS grew by ${quarter.toFixed(1)}MB at 250,000 cases`).to.be.lessThan(64);
      expect(million, `RSS grew by ${million.toFixed(1)}MB at 1,000,000 cases`).to.be.lessThan(64);
      expect(million - quarter, 'growth from 250,000 to 1,000,000 cases').to.be.lessThan(32);
    });
  });
});
