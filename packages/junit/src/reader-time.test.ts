/**
 * Dialect rules of the JUnit reader (packages/junit/README.md, "Rules") on case times and suite timestamps, one small
 * document per rule.
 */
import { expect } from 'chai';
import { readJunitString, suite } from './reader-test-support.ts';

describe('JUnit reader: dialect rules', () => {
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
});
