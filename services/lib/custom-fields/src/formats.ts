/** Format checks for the string-shaped field types, and string facts every stored string needs. */
import { LIMITS } from './types.js';

/**
 * True when the string cannot be stored as JSON text in PostgreSQL: a NUL character (jsonb refuses
 * `\u0000`) or a lone surrogate (not valid Unicode).
 */
export function hasUnstorableCharacters(value: string): boolean {
  return value.includes('\0') || /\p{Cs}/u.test(value);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for `YYYY-MM-DD` naming a real day of the Gregorian calendar, years 0001 to 9999. */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  return match !== null && isRealDay(Number(match[1]), Number(match[2]), Number(match[3]));
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Reads an RFC 3339 date-time with seconds and an explicit offset (`Z` or `±HH:MM`), e.g.
 * `2024-05-01T09:30:00+02:00`, and returns it as UTC `toISOString()` text
 * (`2024-05-01T07:30:00.000Z`); null when the text is not one, or names a time that does not exist.
 * Fractions below a millisecond are dropped; leap seconds (`:60`) are refused.
 */
export function normaliseDateTime(value: string): string | null {
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, zone, sign, offsetHour, offsetMinute] = match;
  if (!isRealDay(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute));
  }
  const millis = fraction ? Number(fraction.slice(1, 4).padEnd(3, '0')) : 0;
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const local = new Date(0);
  local.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  local.setUTCHours(Number(hour), Number(minute), Number(second), millis);
  const utc = new Date(local.getTime() - offsetMinutes * 60_000);
  const utcYear = utc.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return null;
  return utc.toISOString();
}

function isRealDay(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/**
 * The WHATWG `input[type=email]` grammar (what browsers accept), plus: the domain must have a dot
 * (a ticket's contact address must be reachable from outside), the local part is at most 64
 * characters and the whole address at most 254.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

/** True for a plausible email address (see EMAIL above). */
export function isEmailAddress(value: string): boolean {
  if (value.length > LIMITS.maxEmailLength || !EMAIL.test(value)) return false;
  return value.indexOf('@') <= 64;
}

/**
 * True for an absolute `http:` or `https:` URL with a host, at most 2048 characters, written without
 * spaces or control characters (the URL parser would silently drop or encode them).
 */
export function isHttpUrl(value: string): boolean {
  if (value.length > LIMITS.maxUrlLength || /[\s\p{Cc}]/u.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}
