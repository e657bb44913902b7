export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export const iso = (ms: number) => new Date(ms).toISOString();

/** The calendar day of a timestamp in UTC, `YYYY-MM-DD`. */
export const utcDay = (ms: number) => iso(ms).slice(0, 10);
