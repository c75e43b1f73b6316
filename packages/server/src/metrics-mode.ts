/** The modes of `TRAILPROOF_METRICS`, without prom-client: a server with metrics off never loads it (metrics.ts). */
export type MetricsMode = 'off' | 'on' | 'token';
export const metricsModes: readonly MetricsMode[] = ['off', 'on', 'token'];

/** The mode `TRAILPROOF_METRICS` names (`on` when unset); throws on another value. */
export function metricsModeOf(value: string | undefined): MetricsMode {
  const mode = (value ?? 'on').trim().toLowerCase();
  if (!metricsModes.includes(mode as MetricsMode)) throw new RangeError(`TRAILPROOF_METRICS must be one of ${metricsModes.join(', ')}, not '${value}'`);
  return mode as MetricsMode;
}
