const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `YYYY-MM-DDTHH:MM:SS[.mmm]Z` naming an instant that exists: `Date.parse` rolls 2026-02-30 over to
 * March 2 and 24:00 to the next day, so the text must read back unchanged.
 */
export function isCalendarTimestamp(value: string): boolean {
  if (!TIMESTAMP.test(value)) return false;
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === value.slice(0, 19);
}

/** `YYYY-MM-DD` naming a day that exists (not 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  return DATE.test(value) && isCalendarTimestamp(`${value}T00:00:00Z`);
}

/** The shape of a timestamp, whether or not the day exists (for telling a bad form from a bad date). */
export const looksLikeTimestamp = (value: string): boolean => TIMESTAMP.test(value);
