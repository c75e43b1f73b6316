/**
 * Seconds in each unit of time, by every name a caller may write it: the events list's times
 * ago (`30mins`, `2days`) and the command's token lifetimes (`90d`) read their units here.
 */
export const secondsPerUnit: ReadonlyMap<string, number> = new Map(
  Object.entries({
    m: 60,
    min: 60,
    mins: 60,
    minute: 60,
    minutes: 60,
    h: 3_600,
    hr: 3_600,
    hrs: 3_600,
    hour: 3_600,
    hours: 3_600,
    d: 86_400,
    day: 86_400,
    days: 86_400,
    w: 604_800,
    week: 604_800,
    weeks: 604_800,
  }),
);
