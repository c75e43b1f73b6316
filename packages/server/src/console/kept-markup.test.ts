/**
 * Markup rendered once and written again: a page's layout (per console path and organisation)
 * and a chart's inside (per figures). Each must give exactly what rendering anew gives, values
 * escaped, and a change of what they show must show.
 */
import { expect } from 'chai';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { DeploymentsPerDayChart } from './charts.tsx';
import { Layout, renderDocument, renderPage } from './layout.tsx';

const hostile = '"><img src=x onerror=alert(1)><script>alert(2)</script> & ·';

describe('markup kept between pages', () => {
  it('writes a page in the kept layout exactly as the layout renders it, title, organisation and content escaped', () => {
    const content = h('p', { class: 'x' }, hostile);
    for (const [title, org, base] of [
      ['Deployments · acme', 'acme', '/ui'],
      [hostile, hostile, '/console'],
      ['again', 'acme', '/ui'],
    ] as const) {
      const page = renderPage({ title, base, org }, content);
      expect(page).to.equal(renderDocument(Layout({ title, base, org, children: content })));
      expect(page).not.to.include('<script>');
      expect(page).not.to.include('<img');
    }
    // Another organisation's layout is its own.
    expect(renderPage({ title: 't', base: '/ui', org: 'globex' }, content)).to.include('href="/ui/globex/deployments"');
  });

  it('draws a chart again as it was drawn for the same figures, and anew for others', () => {
    const days = [
      { day: '2026-11-20', count: 4 },
      { day: '2026-11-21', count: 7 },
    ];
    const first = render(h(DeploymentsPerDayChart, { id: 'per-day', days, title: hostile }));
    expect(render(h(DeploymentsPerDayChart, { id: 'per-day', days: days.map((d) => ({ ...d })), title: hostile }))).to.equal(first);
    expect(first).not.to.include('<script>');
    expect(first).to.include('11 deployments in 2 days');

    const more = render(h(DeploymentsPerDayChart, { id: 'per-day', days: [days[0]!, { day: '2026-11-21', count: 9 }], title: hostile }));
    expect(more).to.include('13 deployments in 2 days');
    const elsewhere = render(h(DeploymentsPerDayChart, { id: 'other', days, title: hostile }));
    expect(elsewhere).to.match(/^<figure class="chart" id="other">/);
    expect(elsewhere).to.include('aria-labelledby="other-title other-desc"');
  });
});
