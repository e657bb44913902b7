export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export const iso = (ms: number) => new Date(ms).toISOString();

const JERUSALEM_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar day in Israel (the business's day), `YYYY-MM-DD`. */
export const jerusalemDay = (ms: number) => JERUSALEM_DAY.format(ms);

const JERUSALEM_WALL = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** Israel's offset from UTC at an instant, in ms (+2 h in winter, +3 h in summer), from the zone data. */
export function jerusalemOffsetMs(ms: number): number {
  const p = Object.fromEntries(JERUSALEM_WALL.formatToParts(ms).map((x) => [x.type, x.value]));
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant a day (`YYYY-MM-DD`) begins in Israel. Israel changes its clocks at 02:00, so midnight always exists once. */
export function jerusalemMidnightMs(day: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`);
  // Two passes: the offset at the guess, then at the corrected instant (they differ only near a clock change).
  const first = wall - jerusalemOffsetMs(wall);
  return wall - jerusalemOffsetMs(first);
}

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
