/** Charts' markup kept between pages, by what they show (charts.tsx). */
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';

/** Markup of the charts drawn last, by what they show: at most this many kept. */
const keptCharts = 64;
const drawn = new Map<string, string>();

/**
 * A chart is a pure function of its figures, and its SVG is most of what a page with one renders:
 * the inside of its `<figure>` is kept by those figures (the last `keptCharts`) and written as
 * it was, escaped when it was drawn, while the figures stay the same.
 */
export function kept<P extends { id: string }>(name: string, draw: (props: P) => VNode): (props: P) => VNode {
  // The last figures' key: a page whose figures were remembered (until-commit.ts) passes the same
  // objects again, which spares writing them as JSON to find the chart.
  let last: { props: P; key: string } | undefined;
  return (props) => {
    const same = last !== undefined && sameValues(last.props, props);
    const key = same ? last!.key : `${name} ${JSON.stringify(props)}`;
    if (!same) last = { props: { ...props }, key };
    let inner = drawn.get(key);
    if (inner === undefined) {
      const html = render(draw(props));
      const empty = render(<figure class="chart" id={props.id} />);
      const opening = empty.slice(0, empty.length - '</figure>'.length);
      if (!html.startsWith(opening) || !html.endsWith('</figure>')) return draw(props);
      inner = html.slice(opening.length, html.length - '</figure>'.length);
      if (drawn.size >= keptCharts) drawn.delete(drawn.keys().next().value!);
    } else {
      drawn.delete(key);
    }
    drawn.set(key, inner);
    return <figure class="chart" id={props.id} dangerouslySetInnerHTML={{ __html: inner }} />;
  };
}

/** Whether `a` and `b` have the same keys holding the same values (the same objects, not equal ones). */
function sameValues(a: object, b: object): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if ((a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) return false;
  return true;
}
