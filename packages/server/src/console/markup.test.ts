/** The escaping tagged template of long tables (markup.ts): every value text, only its own markup raw. */
import { expect } from 'chai';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { complianceMarkup, Compliance } from './components/compliance.tsx';
import { Time, timeMarkup } from './components/time.tsx';
import { html, type Markup } from './markup.ts';

const hostile = `"><img src=x onerror=alert(1)><script>alert('2')</script> & javascript:alert(3)`;

const decoded = (markup: string) =>
  markup.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name]!);

describe('markup of long tables', () => {
  it('escapes every value, in text and in quoted attributes alike', () => {
    const out = html`<td title="${hostile}">${hostile}</td><td title='${hostile}'>${hostile}</td>`.text;
    expect(out)
      .not.to.include('<img')
      .and.not.to.include('<script')
      .and.not.to.match(/title="[^"]*"[^>]/);
    expect(out).to.equal(
      `<td title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(&#39;2&#39;)&lt;/script&gt; &amp; javascript:alert(3)">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(&#39;2&#39;)&lt;/script&gt; &amp; javascript:alert(3)</td>` +
        `<td title='&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(&#39;2&#39;)&lt;/script&gt; &amp; javascript:alert(3)'>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(&#39;2&#39;)&lt;/script&gt; &amp; javascript:alert(3)</td>`,
    );
  });

  it('writes its own markup as it is, lists item by item, numbers as numbers and nothing for null, undefined and booleans', () => {
    const cell = (text: string) => html`<td>${text}</td>`;
    expect(html`<tr>${[cell('<a>'), cell('b'), [cell('c')]]}${null}${undefined}${false}${true}${0}${12.5}</tr>`.text).to.equal(
      '<tr><td>&lt;a&gt;</td><td>b</td><td>c</td>012.5</tr>',
    );
    // Text that looks like markup is no markup: only what `html` wrote is.
    expect(html`${'<b>'}${{ text: '<b>' } as unknown as Markup}`.text).not.to.include('<b>');
    expect(String(html`<i>${'&'}</i>`)).to.equal('<i>&amp;</i>');
  });

  it('writes a time and a compliance badge as their components render them', () => {
    const now = 1_764_150_000;
    for (const at of [now - 90, now - 7200, 1_700_000_000, null, 0]) expect(timeMarkup(at, now).text).to.equal(render(h(Time, { at, now })));
    // The same markup; values escaped by each (Preact leaves `>` and `'` in text as they are).
    for (const [compliant, label] of [
      [true, undefined],
      [false, undefined],
      [null, undefined],
      [true, 'ATTESTED BY A COMPLIANT TRAIL'],
      [false, hostile],
    ] as const)
      expect(decoded(complianceMarkup(compliant, label).text)).to.equal(decoded(render(h(Compliance, { compliant, label }))));
  });
});
