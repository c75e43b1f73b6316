/** The console's chart of deployments per UTC day (charts.tsx exports it, drawn by its figures). */
import { colours, FiguresTable, fitsAbove, type FigureProps, PLOT_LEFT, PLOT_TOP, PLOT_WIDTH, ValueAxis, axisTop, plural } from './chart-frame.tsx';

/** Deployments on one UTC day (`YYYY-MM-DD`). */
export interface DayCount {
  day: string;
  count: number;
}

export interface DeploymentsPerDayProps {
  id: string;
  days: DayCount[];
  title?: string;
}

const tenths = (n: number) => Math.round(n * 10) / 10;

/** Deployments per UTC day, oldest first, every day given (zeros included); the count written above each bar. */
export function drawDeploymentsPerDay({ id, days, title = 'Deployments per day (UTC)' }: DeploymentsPerDayProps): FigureProps {
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
  return {
    id,
    title,
    description,
    height,
    table: <FiguresTable columns={['Day (UTC)', 'Deployments']} rows={days.map((day) => ({ key: day.day, cells: [day.day, day.count] }))} />,
    children: (
      <>
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
              {day.count > 0 && fitsAbove(String(day.count), slot) && (
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
      </>
    ),
  };
}
