import assert from 'node:assert/strict';
import { isCalendarDate, isCalendarTimestamp } from '../../engine/lifecycle/ledger/time.js';

/** The rule stated on its own: the text reads back unchanged through `Date` (the check before the day was remembered). */
function readsBack(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(value)) return false;
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === value.slice(0, 19);
}

const two = (n: number) => String(n).padStart(2, '0');

/** Timestamps around every edge of a day and a time of day, on days that exist and days that do not. */
function edges(): string[] {
  const out: string[] = [];
  for (const year of ['0000', '1900', '2000', '2024', '2026', '2100', '9999']) {
    for (const month of [0, 1, 2, 4, 12, 13]) {
      for (const day of [0, 1, 28, 29, 30, 31, 32]) {
        for (const time of ['00:00:00', '23:59:59', '24:00:00', '23:60:00', '23:59:60', '12:00:00.5', '12:00:00.123', '99:99:99']) out.push(`${year}-${two(month)}-${two(day)}T${time}Z`);
      }
    }
  }
  return out;
}

describe('lifecycle/ledger/time', () => {
  it('isCalendarTimestamp answers as reading the text back through Date, whatever came before it', () => {
    const values = edges();
    // In order (runs of one day, a remembered day then times that do not exist on it), reversed, and shuffled.
    let seed = 7;
    const shuffled = values.map((v) => [v, (seed = (seed * 48271) % 2147483647)] as const).sort((a, b) => a[1] - b[1]).map(([v]) => v);
    for (const order of [values, [...values].reverse(), shuffled]) {
      for (const value of order) assert.equal(isCalendarTimestamp(value), readsBack(value), value);
    }
  });

  it('a day remembered as existing does not let a time of day that does not exist through', () => {
    assert.equal(isCalendarTimestamp('2026-10-01T12:00:00Z'), true);
    for (const time of ['24:00:00', '23:60:00', '23:59:60']) assert.equal(isCalendarTimestamp(`2026-10-01T${time}Z`), false, time);
    assert.equal(isCalendarTimestamp('2026-10-01T23:59:59.999Z'), true);
  });

  it('a day that does not exist is refused after one that does, and a date alone is checked the same way', () => {
    assert.equal(isCalendarTimestamp('2026-02-28T10:00:00Z'), true);
    assert.equal(isCalendarTimestamp('2026-02-30T10:00:00Z'), false);
    assert.equal(isCalendarTimestamp('2026-02-28T10:00:00'), false);
    assert.equal(isCalendarDate('2024-02-29'), true);
    assert.equal(isCalendarDate('2026-02-29'), false);
    assert.equal(isCalendarDate('2026-02-29T00:00:00Z'), false);
  });
});
