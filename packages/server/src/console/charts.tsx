/**
 * The console's charts: SVG drawn on the server as Preact components, pure functions of plain
 * data, so they show in pages without scripts, in screenshots and in tests. Each chart is a
 * `<figure>` whose `<svg role="img">` has a `<title>` and a `<desc>` saying its figures in words,
 * and a table of every number beside it: what a chart shows by colour is always written too.
 * Hand-drawn: three bar charts are a few dozen lines each, where a charting library would bring
 * a browser-side renderer or a DOM to draw into. Each is drawn from its figures and kept by them
 * (`chart` in chart-frame.tsx).
 */
import { drawDeploymentsPerDay } from './chart-deployments.tsx';
import {
  axisTop,
  chart,
  colours,
  FiguresTable,
  type FigureProps,
  Legend,
  Linked,
  PLOT_LEFT,
  PLOT_TOP,
  PLOT_WIDTH,
  plural,
  shorten,
  utc,
  ValueAxis,
  fitsAbove,
} from './chart-frame.tsx';

export type { DayCount } from './chart-deployments.tsx';
export { axisTop, chartHref, colours, shorten } from './chart-frame.tsx';

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

/**
 * Test results of the last trails, oldest first: one stacked bar per trail (passed, failed with a
 * hatch, skipped), heights in proportion to the counts, the failed count written above each bar,
 * each bar linked to its trail.
 */
function drawTestResults({
  id,
  runs,
  title = `Test results of the last ${plural(runs.length, 'trail')}`,
}: {
  id: string;
  runs: TestRun[];
  title?: string;
}): FigureProps {
  const plotHeight = 160;
  const height = PLOT_TOP + plotHeight + 96;
  const top = axisTop(Math.max(0, ...runs.map((run) => run.passed + run.failed + run.skipped)));
  const slot = PLOT_WIDTH / Math.max(runs.length, 1);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const scale = (count: number) => (count / top) * plotHeight;
  // Labels slanted at 40° sit slot × sin 40° apart: at 11 px type they need 19 px of slot, so narrower slots label every few bars.
  const labelEvery = Math.ceil(19 / slot);
  const failing = runs.filter((run) => run.failed > 0).length;
  const latest = runs.at(-1);
  const description =
    runs.length === 0
      ? 'No trail has test results yet.'
      : `${plural(runs.length, 'trail')}, ${plural(failing, 'trail')} with failed tests. Latest, ${latest!.label}: ${latest!.passed} passed, ${latest!.failed} failed, ${latest!.skipped} skipped.`;
  const hatch = `${id}-hatch`;
  return {
    id,
    title,
    description,
    height,
    table: (
      <FiguresTable
        columns={['Trail', 'Passed', 'Failed', 'Skipped']}
        rows={runs.map((run, index) => ({ key: index, cells: [run.label, run.passed, run.failed, run.skipped] }))}
      />
    ),
    children: (
      <>
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
              {fitsAbove(run.failed > 0 ? `✗${run.failed}` : '✓', slot) ? (
                <text class="bar-note" x={labelX} y={base - 3} text-anchor="middle" fill={run.failed > 0 ? colours.failed : colours.axis}>
                  {run.failed > 0 ? `✗${run.failed}` : '✓'}
                </text>
              ) : null}
              {index % labelEvery === 0 || index === runs.length - 1 ? (
                <text class="bar-label" x={labelX} y={labelY} text-anchor="end" transform={`rotate(-40 ${labelX} ${labelY})`}>
                  {shorten(run.label, 16)}
                </text>
              ) : null}
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
      </>
    ),
  };
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

/** Compliance of trails over time, oldest first: one cell per trail with ✓, ✗ or ? written in it. */
function drawComplianceStrip({ id, points, title = 'Compliance over time' }: ComplianceStripProps): FigureProps {
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
  return {
    id,
    title,
    description,
    height,
    table: (
      <FiguresTable
        columns={['Trail', 'Time (UTC)', 'Compliance']}
        rows={points.map((point, index) => ({ key: index, cells: [point.label, utc(point.at), complianceState(point.compliant).word] }))}
      />
    ),
    children: (
      <>
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
      </>
    ),
  };
}

interface ComplianceStripProps {
  id: string;
  points: CompliancePoint[];
  title?: string;
}

/** Test results of trails, oldest first: a stacked bar per trail (passed, failed, skipped), linked to the trail. */
export const TestResultsChart = chart('test-results', drawTestResults);

/** Compliance of trails over time, oldest first: a square per trail, its state written in it. */
export const ComplianceStrip = chart('compliance-strip', drawComplianceStrip);

/** Deployments per UTC day, oldest first, every day given (zeros included); the count written above each bar. */
export const DeploymentsPerDayChart = chart('deployments-per-day', drawDeploymentsPerDay);
