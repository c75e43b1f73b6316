/**
 * Dialect rules of the JUnit reader (packages/junit/README.md, "Rules") on corrupt XML, bounds and file-system errors,
 * one small document per rule.
 */
import { expect } from 'chai';
import { fixture, fromBytes, readJunitFile, readJunitString, rejection, suite } from './reader-test-support.ts';

describe('JUnit reader: dialect rules', () => {
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
});
