import { expect } from 'chai';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { axisTop, chartHref, ComplianceStrip, DeploymentsPerDayChart, shorten, TestResultsChart, type TestRun } from './charts.tsx';

/** The attributes of every `<rect>` of a class, in document order. */
function rects(html: string, className: string): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = [];
  for (const [tag] of html.matchAll(/<rect\b[^>]*>/g)) {
    const attributes = Object.fromEntries([...tag.matchAll(/([\w:-]+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!]));
    if (attributes.class === className) found.push(attributes);
  }
  return found;
}

const height = (rect: Record<string, string>) => Number(rect.height);
const hostile = '"><img src=x onerror=alert(1)><script>alert(2)</script>';

function expectAccessibleFigure(html: string, id: string): void {
  expect(html).to.match(new RegExp(`<svg[^>]*role="img"[^>]*aria-labelledby="${id}-title ${id}-desc"`));
  expect(html).to.match(new RegExp(`<title id="${id}-title">[^<]+</title>`));
  expect(html).to.match(new RegExp(`<desc id="${id}-desc">[^<]+</desc>`));
  expect(html).to.include('<table>');
  // No element or attribute that runs or styles anything: hostile labels stay text.
  for (const [tag] of html.matchAll(/<[a-z][^>]*>/gi)) expect(tag).not.to.match(/^<(script|img|iframe)|\son\w+=|\sstyle=/i);
}

describe('console charts', () => {
  it('picks an axis top of 1, 2 or 5 times a power of ten at or above the largest value', () => {
    expect([0, 1, 3, 10, 11, 120, 499, 501, 1_000_000].map(axisTop)).to.deep.equal([1, 1, 5, 10, 20, 200, 500, 1000, 1_000_000]);
  });

  it('keeps links to paths on this server only', () => {
    expect(chartHref('/ui/acme/flows/f/trails/t')).to.equal('/ui/acme/flows/f/trails/t');
    for (const bad of ['javascript:alert(1)', '//evil.example/x', 'https://evil.example', '/\\evil.example', ' /x']) expect(chartHref(bad)).to.equal(undefined);
  });

  it('shortens labels by characters, not code units', () => {
    expect(shorten('short', 16)).to.equal('short');
    expect(shorten('🚀'.repeat(20), 5)).to.equal('🚀🚀🚀🚀…');
  });

  describe('test results', () => {
    const runs: TestRun[] = [
      { label: 'trail-1', href: '/ui/acme/flows/f/trails/trail-1', passed: 100, failed: 0, skipped: 0 },
      { label: 'trail-2', href: '/ui/acme/flows/f/trails/trail-2', passed: 50, failed: 25, skipped: 5 },
      { label: 'trail-3', passed: 10, failed: 0, skipped: 90 },
    ];

    it('draws one stacked bar per trail, heights in proportion to the counts, with every figure in text', () => {
      const html = render(h(TestResultsChart, { id: 'tests', runs }));
      expectAccessibleFigure(html, 'tests');
      const passed = rects(html, 'bar-passed');
      const failed = rects(html, 'bar-failed');
      const skipped = rects(html, 'bar-skipped');
      expect([passed.length, failed.length, skipped.length]).to.deep.equal([3, 3, 3]);
      expect(passed.map((rect) => rect['data-value'])).to.deep.equal(['100', '50', '10']);
      // The tallest bar (100) reaches the axis top (100); the others are in proportion to it.
      expect(height(passed[0]!)).to.be.closeTo(2 * height(passed[1]!), 1e-9);
      expect(height(passed[1]!)).to.be.closeTo(2 * height(failed[1]!), 1e-9);
      expect(height(skipped[2]!)).to.be.closeTo(9 * height(passed[2]!), 1e-9);
      expect(height(failed[0]!)).to.equal(0);
      // A segment sits on the one below it.
      expect(Number(failed[1]!.y) + height(failed[1]!)).to.be.closeTo(Number(passed[1]!.y), 1e-9);
      expect(html).to.include('✗25').and.to.include('trail-2: 50 passed, 25 failed, 5 skipped');
      expect(html).to.include('<th scope="row">trail-3</th><td>10</td><td>0</td><td>90</td>');
      expect(html).to.include('1 trail with failed tests').and.to.include('Latest, trail-3: 10 passed, 0 failed, 90 skipped');
      expect(html.match(/<a href="\/ui\/acme\/flows\/f\/trails\/trail-\d"/g)).to.have.length(2);
    });

    it('writes labels as text and drops links that are not paths here', () => {
      const html = render(h(TestResultsChart, { id: 'tests', runs: [{ label: hostile, href: 'javascript:alert(3)', passed: 1, failed: 1, skipped: 0 }] }));
      expectAccessibleFigure(html, 'tests');
      expect(html).not.to.include('<img').and.not.to.include('javascript:');
      expect(html).to.include('&lt;script>alert(2)&lt;/script>');
    });

    it('says so when no trail has test results', () => {
      const html = render(h(TestResultsChart, { id: 'empty', runs: [] }));
      expectAccessibleFigure(html, 'empty');
      expect(html).to.include('No trail has test results yet.');
      expect(rects(html, 'bar-passed')).to.have.length(0);
    });
  });

  describe('compliance over time', () => {
    it('draws one cell per trail with its state written in it, and the time span in words', () => {
      const points = [
        { label: 'a', at: 1_764_000_000, compliant: true, href: '/ui/acme/flows/f/trails/a' },
        { label: 'b', at: 1_764_003_600, compliant: false },
        { label: hostile, at: 1_764_007_200, compliant: null },
        { label: 'd', at: 1_764_010_800, compliant: true },
      ];
      const html = render(h(ComplianceStrip, { id: 'compliance', points }));
      expectAccessibleFigure(html, 'compliance');
      expect(rects(html, 'cell-compliant')).to.have.length(2);
      expect(rects(html, 'cell-non-compliant')).to.have.length(1);
      expect(rects(html, 'cell-unknown')).to.have.length(1);
      expect(html.match(/>✓</g)).to.have.length(2);
      expect(html.match(/>✗</g)).to.have.length(1);
      expect(html).to.include(
        '2 of 4 trails compliant, 1 not compliant, 1 not evaluated, from 2025-11-24 16:00 UTC to 2025-11-24 19:00 UTC; latest d: compliant.',
      );
      expect(html).to.include('<td>2025-11-24 17:00 UTC</td><td>not compliant</td>');
      expect(html).not.to.include('<img');
    });
  });

  describe('deployments per day', () => {
    it('draws one bar per day in proportion to its count, with counts and days in text', () => {
      const days = [
        { day: '2026-11-20', count: 4 },
        { day: '2026-11-21', count: 0 },
        { day: '2026-11-22', count: 8 },
        { day: '2026-11-23', count: 2 },
      ];
      const html = render(h(DeploymentsPerDayChart, { id: 'per-day', days }));
      expectAccessibleFigure(html, 'per-day');
      const bars = rects(html, 'bar-day');
      expect(bars.map((bar) => bar['data-value'])).to.deep.equal(['4', '0', '8', '2']);
      expect(height(bars[2]!)).to.be.closeTo(2 * height(bars[0]!), 1e-9);
      expect(height(bars[0]!)).to.be.closeTo(2 * height(bars[3]!), 1e-9);
      expect(height(bars[1]!)).to.equal(0);
      expect(html).to.include('14 deployments in 4 days from 2026-11-20 to 2026-11-23; busiest 2026-11-22 with 8.');
      expect(html).to.include('<th scope="row">2026-11-22</th><td>8</td>');
      expect(html).to.include('>11-22<');
    });
  });
});
