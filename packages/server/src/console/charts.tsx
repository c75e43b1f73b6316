/**
 * The console's charts: SVG drawn on the server as Preact components, pure functions of plain
 * data, so they show in pages without scripts, in screenshots and in tests. Each chart is a
 * `<figure>` whose `<svg role="img">` has a `<title>` and a `<desc>` saying its figures in words,
 * and a table of every number beside it: what a chart shows by colour is always written too.
 * Hand-drawn: three bar charts are a few dozen lines each, where a charting library would bring
 * a browser-side renderer or a DOM to draw into.
 */
import type { ComponentChildren } from 'preact';
import { kept } from './kept-chart.tsx';

/** One trail's test results: a bar of the test results chart. */
export interface TestRun {
  label: string;
  /** The trail's console page (a path on this server: other values are dropped). */
  href?: string;
  passed: number;
  failed: number;
  skipped: number;
}

/** One trail's compliance: a cell of the compliance strip. */
export interface CompliancePoint {
  label: string;
  href?: string;
  /** Unix seconds. */
  at: number;
  /** `null`: not evaluated yet or incomplete. */
  compliant: boolean | null;
}

/** Deployments on one UTC day (`YYYY-MM-DD`). */
export interface DayCount {
  day: string;
  count: number;
}

const WIDTH = 640;
const PLOT_TOP = 24;
const PLOT_LEFT = 44;
const PLOT_RIGHT = 8;
const PLOT_WIDTH = WIDTH - PLOT_LEFT - PLOT_RIGHT;

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

function utc(at: number): string {
  return `${new Date(at * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** One formatter for every number: `toLocaleString` builds a new formatter at each call. */
const numbers = new Intl.NumberFormat('en');

function plural(count: number, one: string, many = `${one}s`): string {
  return `${numbers.format(count)} ${count === 1 ? one : many}`;
}

function Linked({ href, children }: { href: string | undefined; children: ComponentChildren }) {
  const safe = chartHref(href);
  return safe === undefined ? <g>{children}</g> : <a href={safe}>{children}</a>;
}

interface FigureProps {
  id: string;
  title: string;
  description: string;
  height: number;
  children: ComponentChildren;
  table: ComponentChildren;
}

/** The frame of every chart: the titled SVG and, below it, the same figures as a table. */
function Figure({ id, title, description, height, children, table }: FigureProps) {
  return (
    <figure class="chart" id={id}>
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
    </figure>
  );
}

/** A vertical axis from 0 to `top` with three labelled grid lines. */
function ValueAxis({ top, plotHeight }: { top: number; plotHeight: number }) {
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
function Legend({ items, y }: { items: Array<{ name: string; fill: string; pattern?: string }>; y: number }) {
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

/**
 * Test results of the last trails, oldest first: one stacked bar per trail (passed, failed with a
 * hatch, skipped), heights in proportion to the counts, the failed count written above each bar.
 */
function drawTestResults({ id, runs, title = `Test results of the last ${plural(runs.length, 'trail')}` }: { id: string; runs: TestRun[]; title?: string }) {
  const plotHeight = 160;
  const height = PLOT_TOP + plotHeight + 96;
  const top = axisTop(Math.max(0, ...runs.map((run) => run.passed + run.failed + run.skipped)));
  const slot = PLOT_WIDTH / Math.max(runs.length, 1);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const scale = (count: number) => (count / top) * plotHeight;
  const failing = runs.filter((run) => run.failed > 0).length;
  const latest = runs.at(-1);
  const description =
    runs.length === 0
      ? 'No trail has test results yet.'
      : `${plural(runs.length, 'trail')}, ${plural(failing, 'trail')} with failed tests. Latest, ${latest!.label}: ${latest!.passed} passed, ${latest!.failed} failed, ${latest!.skipped} skipped.`;
  const hatch = `${id}-hatch`;
  return (
    <Figure
      id={id}
      title={title}
      description={description}
      height={height}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Trail</th>
              <th scope="col">Passed</th>
              <th scope="col">Failed</th>
              <th scope="col">Skipped</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run, index) => (
              <tr key={index}>
                <th scope="row">{run.label}</th>
                <td>{run.passed}</td>
                <td>{run.failed}</td>
                <td>{run.skipped}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <defs>
        <pattern id={hatch} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
          <rect width="6" height="6" fill={colours.failed} />
          <line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2" />
        </pattern>
      </defs>
      <ValueAxis top={top} plotHeight={plotHeight} />
      {runs.map((run, index) => {
        const x = PLOT_LEFT + index * slot + (slot - barWidth) / 2;
        let base = PLOT_TOP + plotHeight;
        const segments = (['passed', 'failed', 'skipped'] as const).map((kind) => {
          const h = scale(run[kind]);
          base -= h;
          return (
            <rect
              key={kind}
              class={`bar-${kind}`}
              data-value={run[kind]}
              x={x}
              y={base}
              width={barWidth}
              height={h}
              fill={kind === 'failed' ? `url(#${hatch})` : colours[kind]}
            />
          );
        });
        const labelX = x + barWidth / 2;
        const labelY = PLOT_TOP + plotHeight + 12;
        return (
          <Linked key={index} href={run.href}>
            <title>{`${run.label}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`}</title>
            {segments}
            <text class="bar-note" x={labelX} y={base - 3} text-anchor="middle" fill={run.failed > 0 ? colours.failed : colours.axis}>
              {run.failed > 0 ? `✗${run.failed}` : '✓'}
            </text>
            <text class="bar-label" x={labelX} y={labelY} text-anchor="end" transform={`rotate(-40 ${labelX} ${labelY})`}>
              {shorten(run.label, 16)}
            </text>
          </Linked>
        );
      })}
      <Legend
        y={height - 6}
        items={[
          { name: 'passed', fill: colours.passed },
          { name: 'failed (hatched, ✗count)', fill: colours.failed, pattern: `url(#${hatch})` },
          { name: 'skipped', fill: colours.skipped },
        ]}
      />
    </Figure>
  );
}

const complianceStates = {
  compliant: { word: 'compliant', glyph: '✓', fill: colours.passed },
  'non-compliant': { word: 'not compliant', glyph: '✗', fill: colours.failed },
  unknown: { word: 'not evaluated', glyph: '?', fill: colours.unknown },
} as const;

function complianceState(compliant: boolean | null): (typeof complianceStates)[keyof typeof complianceStates] & { name: keyof typeof complianceStates } {
  const name = compliant === true ? 'compliant' : compliant === false ? 'non-compliant' : 'unknown';
  return { name, ...complianceStates[name] };
}

/** Compliance over time, oldest first: one cell per trail with ✓, ✗ or ? written in it. */
function drawComplianceStrip({ id, points, title = 'Compliance over time' }: ComplianceStripProps) {
  const height = 76;
  const cell = Math.min(32, PLOT_WIDTH / Math.max(points.length, 1));
  const compliant = points.filter((point) => point.compliant === true).length;
  const failing = points.filter((point) => point.compliant === false).length;
  const first = points[0];
  const last = points.at(-1);
  const description =
    first === undefined || last === undefined
      ? 'No trail yet.'
      : `${compliant} of ${plural(points.length, 'trail')} compliant, ${failing} not compliant, ${points.length - compliant - failing} not evaluated, from ${utc(first.at)} to ${utc(last.at)}; latest ${last.label}: ${complianceState(last.compliant).word}.`;
  return (
    <Figure
      id={id}
      title={title}
      description={description}
      height={height}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Trail</th>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Compliance</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point, index) => (
              <tr key={index}>
                <th scope="row">{point.label}</th>
                <td>{utc(point.at)}</td>
                <td>{complianceState(point.compliant).word}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      {points.map((point, index) => {
        const x = PLOT_LEFT + index * cell;
        const state = complianceState(point.compliant);
        return (
          <Linked key={index} href={point.href}>
            <title>{`${point.label}, ${utc(point.at)}: ${state.word}`}</title>
            <rect class={`cell-${state.name}`} x={x + 1} y={8} width={Math.max(1, cell - 2)} height={28} fill={state.fill} />
            {cell >= 10 && (
              <text x={x + cell / 2} y={26} text-anchor="middle" fill="#ffffff" font-weight="bold">
                {state.glyph}
              </text>
            )}
          </Linked>
        );
      })}
      {first && (
        <text x={PLOT_LEFT} y={50} fill={colours.axis}>
          {utc(first.at)}
        </text>
      )}
      {last && points.length > 1 && (
        <text x={PLOT_LEFT + points.length * cell} y={50} text-anchor="end" fill={colours.axis}>
          {utc(last.at)}
        </text>
      )}
      <Legend y={height - 6} items={Object.values(complianceStates).map((state) => ({ name: `${state.glyph} ${state.word}`, fill: state.fill }))} />
    </Figure>
  );
}

const tenths = (n: number) => Math.round(n * 10) / 10;

/** Deployments per UTC day, oldest first, every day given (zeros included); the count written above each bar. */
function drawDeploymentsPerDay({ id, days, title = 'Deployments per day (UTC)' }: DeploymentsPerDayProps) {
  const plotHeight = 140;
  const height = PLOT_TOP + plotHeight + 40;
  const top = axisTop(Math.max(0, ...days.map((day) => day.count)));
  const slot = PLOT_WIDTH / Math.max(days.length, 1);
  const barWidth = tenths(Math.max(1, slot * 0.75));
  const labelEvery = Math.max(1, Math.ceil(days.length / 8));
  const total = days.reduce((sum, day) => sum + day.count, 0);
  const busiest = days.reduce<DayCount | undefined>((best, day) => (best === undefined || day.count > best.count ? day : best), undefined);
  const bars = days.map((day, index) => {
    // Tenths of a pixel: each position is written twice or three times.
    const x = tenths(PLOT_LEFT + index * slot + (slot - barWidth) / 2);
    const h = (day.count / top) * plotHeight;
    return { day, index, x, h, y: PLOT_TOP + plotHeight - h };
  });
  const description =
    days.length === 0
      ? 'No days in the window.'
      : `${plural(total, 'deployment')} in ${plural(days.length, 'day')} from ${days[0]!.day} to ${days.at(-1)!.day}; busiest ${busiest!.day} with ${busiest!.count}.`;
  return (
    <Figure
      id={id}
      title={title}
      description={description}
      height={height}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Deployments</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.day}>
                <th scope="row">{day.day}</th>
                <td>{day.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ValueAxis top={top} plotHeight={plotHeight} />
      {/* Colours and the labels' anchor once for all bars (inherited): a page shows up to 92. */}
      <g fill={colours.bar}>
        {bars.map(({ day, x, y, h }) => (
          <rect key={day.day} class="bar-day" data-value={day.count} x={x} y={y} width={barWidth} height={h}>
            <title>{`${day.day}: ${plural(day.count, 'deployment')}`}</title>
          </rect>
        ))}
      </g>
      <g fill={colours.axis} text-anchor="middle">
        {bars.map(({ day, x, y, index }) => (
          <>
            {slot >= 18 && day.count > 0 && (
              <text x={tenths(x + barWidth / 2)} y={y - 3}>
                {day.count}
              </text>
            )}
            {index % labelEvery === 0 && (
              <text x={tenths(x + barWidth / 2)} y={PLOT_TOP + plotHeight + 14}>
                {day.day.slice(5)}
              </text>
            )}
          </>
        ))}
      </g>
    </Figure>
  );
}

interface ComplianceStripProps {
  id: string;
  points: CompliancePoint[];
  title?: string;
}

interface DeploymentsPerDayProps {
  id: string;
  days: DayCount[];
  title?: string;
}

/** Test results of trails, oldest first: a stacked bar per trail (passed, failed, skipped), linked to the trail. */
export const TestResultsChart = kept('test-results', drawTestResults);

/** Compliance of trails over time, oldest first: a square per trail, its state written in it. */
export const ComplianceStrip = kept('compliance-strip', drawComplianceStrip);

/** Deployments per UTC day, oldest first, every day given (zeros included); the count written above each bar. */
export const DeploymentsPerDayChart = kept('deployments-per-day', drawDeploymentsPerDay);
