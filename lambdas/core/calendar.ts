/**
 * Dates as callers write them (a query's day filter, a key's expiry), read strictly, component by
 * component. `Date.parse` is no judge of them: it turns 30 February into 1 March and month 13
 * into NaN, which a filter then passed on as a wrong day or a 500.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2})))?$/i;

/**
 * Midnight UTC starting that day, or null when the calendar has no such day. Date rolls an
 * out-of-range month or day over into the next, so only a date that reads back the same is real;
 * setUTCFullYear, unlike Date.UTC, keeps years 0 to 99 as themselves.
 */
const utcMidnight = (year: number, month: number, day: number): Date | null => {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
};

/** A day written YYYY-MM-DD, as the instant it starts (UTC); null for anything else. */
export const calendarDay = (text: string): Date | null => {
  const parts = DAY.exec(text);
  return parts ? utcMidnight(Number(parts[1]), Number(parts[2]), Number(parts[3])) : null;
};

/**
 * An ISO 8601 date (midnight UTC) or date-time with its offset (`Z` or `±hh:mm`), as an instant;
 * null for anything else, an hour 24 or a second 60 included.
 */
export const instantOf = (text: string): Date | null => {
  const parts = DATE_TIME.exec(text);
  if (!parts) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] = parts;
  const midnight = utcMidnight(Number(year), Number(month), Number(day));
  if (!midnight || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return null;
  const offsetMinutesEast = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const seconds = (Number(hour) * 60 + Number(minute) - offsetMinutesEast) * 60 + Number(second);
  // Milliseconds from the fraction's digits, not from arithmetic on 0.123 (which is not exact).
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  return new Date(midnight.getTime() + seconds * 1000 + milliseconds);
};
