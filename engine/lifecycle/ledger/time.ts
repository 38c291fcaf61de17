const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The day (`YYYY-MM-DD`) of the last timestamp found to exist: ledger lines in a row share their day. */
let lastDay = '';

/**
 * `YYYY-MM-DDTHH:MM:SS[.mmm]Z` naming an instant that exists: `Date.parse` rolls 2026-02-30 over to
 * March 2 and 24:00 to the next day, so the text must read back unchanged.
 *
 * Such a text exists exactly when its time of day is one (hours to 23, minutes and seconds to 59)
 * and its day is one. The day is read back through `Date` once per run of timestamps on the same
 * day (the cold scan asks this of every ledger line); the time of day is checked every time.
 */
export function isCalendarTimestamp(value: string): boolean {
  if (!TIMESTAMP.test(value)) return false;
  if (!isTimeOfDay(value)) return false;
  const day = value.slice(0, 10);
  if (day === lastDay) return true;
  const ms = Date.parse(value);
  const exists = !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === value.slice(0, 19);
  if (exists) lastDay = day;
  return exists;
}

/** Digits 11-12, 14-15 and 17-18 of a timestamp (its shape already checked) as an hour, a minute and a second. */
function isTimeOfDay(value: string): boolean {
  return twoDigits(value, 11) <= 23 && twoDigits(value, 14) <= 59 && twoDigits(value, 17) <= 59;
}

// At module level, not a closure per call: the cold scan asks this of every line, and a closure
// made per call is garbage per line (and, under tsx, a `__name` wrapper call per line).
function twoDigits(value: string, at: number): number {
  return (value.charCodeAt(at) - 48) * 10 + (value.charCodeAt(at + 1) - 48);
}

/** `YYYY-MM-DD` naming a day that exists (not 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  return DATE.test(value) && isCalendarTimestamp(`${value}T00:00:00Z`);
}

/** The shape of a timestamp, whether or not the day exists (for telling a bad form from a bad date). */
export const looksLikeTimestamp = (value: string): boolean => TIMESTAMP.test(value);
