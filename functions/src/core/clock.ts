export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export const iso = (ms: number) => new Date(ms).toISOString();

/** The calendar day of a timestamp in UTC, `YYYY-MM-DD`. */
export const utcDay = (ms: number) => iso(ms).slice(0, 10);

const JERUSALEM_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar day in Israel (the business's day), `YYYY-MM-DD`. */
export const jerusalemDay = (ms: number) => JERUSALEM_DAY.format(ms);

/** Milliseconds until the next midnight in Israel (daylight saving included). */
export function msToJerusalemMidnight(ms: number): number {
  const today = jerusalemDay(ms);
  // Step forward by hours until the Israeli date changes, then refine to the minute: exact across DST days.
  let t = ms;
  while (jerusalemDay(t) === today) t += 3_600_000;
  t -= 3_600_000;
  while (jerusalemDay(t) === today) t += 60_000;
  return t - ms;
}
