/**
 * What the console's charts (charts.tsx) are drawn with: the plot's geometry and colours, the
 * frame every chart has (titled SVG, caption, the figures as a table), a value axis, a legend,
 * safe links, and the formatting of labels and numbers.
 */
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { BoundedCache, cacheKey } from './page-cache.ts';

/** The geometry every chart shares, in SVG units: 640 wide, the plot inset from the top and the sides. */
const WIDTH = 640;
export const PLOT_TOP = 24;
export const PLOT_LEFT = 44;
const PLOT_RIGHT = 8;
export const PLOT_WIDTH = WIDTH - PLOT_LEFT - PLOT_RIGHT;

/** The charts' colours, by what they show. */
export const colours = { passed: '#2e7d32', failed: '#c62828', skipped: '#9e9e9e', unknown: '#757575', bar: '#1565c0', axis: '#616161' };

/** The smallest of 1, 2 or 5 times a power of ten that is at least `value` (at least 1): the axis top. */
export function axisTop(value: number): number {
  if (!(value > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** A link for a chart only where it is a path on this server: never `javascript:` or another host. */
export function chartHref(href: string | undefined): string | undefined {
  return href?.startsWith('/') && !href.startsWith('//') && !href.startsWith('/\\') ? href : undefined;
}

/** A label cut to `max` characters with an ellipsis: the whole of it is in the bar's title and the table. */
export function shorten(label: string, max: number): string {
  const chars = [...label];
  return chars.length <= max ? label : `${chars.slice(0, max - 1).join('')}…`;
}

/** Unix seconds as `YYYY-MM-DD HH:MM UTC`. */
export function utc(at: number): string {
  return `${new Date(at * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** One formatter for every number: `toLocaleString` builds a new formatter at each call. */
const numbers = new Intl.NumberFormat('en');

/** `count` written out with its noun: "1 trail", "1,024 trails". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${numbers.format(count)} ${count === 1 ? one : many}`;
}

/** Its children as a link where `href` is a path on this server (chartHref), else as they are. */
export function Linked({ href, children }: { href: string | undefined; children: ComponentChildren }) {
  const safe = chartHref(href);
  return safe === undefined ? <g>{children}</g> : <a href={safe}>{children}</a>;
}

/** A chart's figures as a table: a header row of `columns`, then a row each, its first cell the row's heading. */
export function FiguresTable({ columns, rows }: { columns: string[]; rows: { key: string | number; cells: ComponentChildren[] }[] }) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map(({ key, cells: [heading, ...rest] }) => (
          <tr key={key}>
            <th scope="row">{heading}</th>
            {rest.map((cell, index) => (
              <td key={index}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a chart draws: its figure's title and description, and the SVG's inside and the table of its figures. */
export interface FigureProps {
  id: string;
  title: string;
  description: string;
  height: number;
  children: ComponentChildren;
  table: ComponentChildren;
}

/** Inside every chart's `<figure>`: the titled SVG and, below it, the same figures as a table. */
function FigureInside({ id, title, description, height, children, table }: FigureProps) {
  return (
    <>
      <svg
        xmlns="http://www.w3.org/2000/svg"
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        viewBox={`0 0 ${WIDTH} ${height}`}
        width={WIDTH}
        height={height}
        font-family="sans-serif"
        font-size="11"
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {children}
      </svg>
      <figcaption>
        {title}: {description}
      </figcaption>
      <details>
        <summary>Figures of “{title}”</summary>
        {table}
      </details>
    </>
  );
}

/** The insides of the charts drawn last, by their name and figures. */
const drawnCharts = new BoundedCache<string>({ entries: 64, bytes: 8 * 1024 * 1024 });

/**
 * A chart as a component: a chart is a pure function of its figures, and its SVG is most of what
 * a page with one renders, so the inside of its `<figure>` is rendered once per figures (escaped
 * then) and written again while they stay the same.
 */
export function chart<P extends { id: string }>(name: string, draw: (props: P) => FigureProps): (props: P) => VNode {
  return (props) => {
    const key = cacheKey({ chart: name, props });
    let inside = drawnCharts.get(key);
    if (inside === undefined) {
      inside = render(<FigureInside {...draw(props)} />);
      drawnCharts.set(key, inside);
    }
    return <figure class="chart" id={props.id} dangerouslySetInnerHTML={{ __html: inside }} />;
  };
}

/** A vertical axis from 0 to `top` with three labelled grid lines. */
export function ValueAxis({ top, plotHeight }: { top: number; plotHeight: number }) {
  const ticks = [0, top / 2, top].filter((tick, index, all) => Number.isInteger(tick) && all.indexOf(tick) === index);
  return (
    <g class="axis" fill={colours.axis}>
      {ticks.map((tick) => {
        const y = PLOT_TOP + plotHeight - (tick / top) * plotHeight;
        return (
          <g key={tick}>
            <line x1={PLOT_LEFT} x2={WIDTH - PLOT_RIGHT} y1={y} y2={y} stroke="#e0e0e0" />
            <text x={PLOT_LEFT - 4} y={y + 4} text-anchor="end">
              {numbers.format(tick)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** A row of coloured squares, each named in text. */
export function Legend({ items, y }: { items: Array<{ name: string; fill: string; pattern?: string }>; y: number }) {
  let x = PLOT_LEFT;
  return (
    <g class="legend">
      {items.map((item) => {
        const at = x;
        x += 24 + item.name.length * 7;
        return (
          <g key={item.name}>
            <rect x={at} y={y - 9} width={10} height={10} fill={item.pattern ?? item.fill} stroke={item.fill} />
            <text x={at + 14} y={y}>
              {item.name}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** Whether a note above a bar fits its slot: about 7 px a character at 11 px type, and a little air. */
export const fitsAbove = (note: string, slot: number) => note.length * 7 + 3 <= slot;
