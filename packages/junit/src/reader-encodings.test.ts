/**
 * Dialect rules of the JUnit reader (packages/junit/README.md, "Rules") on encodings, DOCTYPE and entities, one small
 * document per rule.
 */
import { expect } from 'chai';
import { fromBytes, readJunitBytes, readJunitString, rejection } from './reader-test-support.ts';

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
      it(`reads ${label}, also one byte at a time, and as bytes at hand`, async () => {
        for (const size of [64 * 1024, 1]) {
          const r = await fromBytes(bytes, size);
          expect(r.cases[0]).to.include({ className: 'Ça', name: 'naïve “quoted”', suiteName: 'Süße €' });
        }
        expect(await readJunitBytes(bytes, 'test.xml')).to.deep.equal(await fromBytes(bytes));
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
      expect((await rejection(readJunitBytes(utf32, 'test.xml'))).message).to.include('UTF-32');
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
      const fromAttachment = await rejection(readJunitBytes(Buffer.from('<?xml version="1.0"?>\n<!DOCTYPE testsuites>\n<testsuites/>'), 'd.xml'));
      expect(fromAttachment).to.include({ kind: 'corrupt', line: 2, file: 'd.xml' });
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
});
