/**
 * Business calendars: an IANA time zone, working intervals per weekday in local wall time,
 * holidays as local dates, or a 24x7 calendar (docs/sla.md, "Calendars").
 */
import { IANAZone } from 'luxon';
import {
  MAX_HOLIDAY_YEAR,
  MAX_HOLIDAYS,
  MAX_INTERVALS_PER_DAY,
  MAX_NAME_LENGTH,
  MIN_HOLIDAY_YEAR,
} from './limits.js';
import { addError, type FieldErrors, isPlainObject, type Result } from './types.js';

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A working interval in local wall time, `HH:MM` from 00:00 to 24:00, start before end. */
export interface WorkingInterval {
  start: string;
  end: string;
}

export interface Holiday {
  /** A local date in the calendar's zone, `YYYY-MM-DD`: the whole local day is closed. */
  date: string;
  name: string | null;
}

/** A validated calendar (plain JSON data: it can be stored and sent as is). */
export interface Calendar {
  time_zone: string;
  /** Open every minute of every day: hours and holidays are then empty. */
  always_open: boolean;
  /** Every weekday, its intervals sorted by start (a closed day has none). */
  hours: Record<Weekday, WorkingInterval[]>;
  /** Sorted by date, one entry per date. */
  holidays: Holiday[];
}

/** A 24x7 calendar in UTC: what "calendar minutes" count against. */
export const ALWAYS_OPEN: Calendar = Object.freeze({
  time_zone: 'UTC',
  always_open: true,
  hours: Object.freeze(
    Object.fromEntries(WEEKDAYS.map((day) => [day, []])) as unknown as Record<Weekday, WorkingInterval[]>,
  ),
  holidays: [],
});

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const CALENDAR_KEYS = new Set(['time_zone', 'always_open', 'hours', 'holidays']);

/** Minutes after local midnight of a valid `HH:MM` (24:00 is 1440). */
export function minutesOfTime(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** True when `date` is a real calendar date `YYYY-MM-DD` within the accepted years. */
export function isHolidayDate(date: string): boolean {
  const match = DATE.exec(date);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < MIN_HOLIDAY_YEAR || year > MAX_HOLIDAY_YEAR) return false;
  const utc = new Date(Date.UTC(year, month - 1, day));
  return utc.getUTCFullYear() === year && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day;
}

/** True when luxon knows `zone` as an IANA zone name. */
export function isKnownZone(zone: string): boolean {
  return zone.length > 0 && zone.length <= 64 && IANAZone.isValidZone(zone);
}

/** The zone's name as the runtime's time-zone data spells it (`america/new_york` -> `America/New_York`). */
function canonicalZone(zone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}

/**
 * Validates a calendar as entered: `{ time_zone, always_open?, hours?, holidays? }`. Refuses
 * unknown zones, malformed or overlapping intervals (touching ones are fine), more than
 * MAX_INTERVALS_PER_DAY intervals a day, a business calendar with no working time at all, more
 * than MAX_HOLIDAYS holidays, impossible dates, and hours or holidays on a 24x7 calendar.
 * Holidays given twice are kept once (the first name wins).
 */
export function validateCalendar(input: unknown): Result<Calendar> {
  const errors: FieldErrors = {};
  if (!isPlainObject(input)) return { ok: false, errors: { calendar: ['calendar must be an object'] } };
  for (const key of Object.keys(input))
    if (!CALENDAR_KEYS.has(key)) addError(errors, key, 'Unknown property');

  const zone = input.time_zone;
  if (zone === undefined) addError(errors, 'time_zone', 'time_zone is required');
  else if (typeof zone !== 'string') addError(errors, 'time_zone', 'time_zone must be a string');
  else if (!isKnownZone(zone))
    addError(errors, 'time_zone', `time_zone "${zone.slice(0, 64)}" is not a known IANA time zone`);

  const alwaysOpen = input.always_open ?? false;
  if (typeof alwaysOpen !== 'boolean') addError(errors, 'always_open', 'always_open must be a boolean');

  const hours = parseHours(input.hours, errors);
  const holidays = parseHolidays(input.holidays, errors);

  if (alwaysOpen === true) {
    if (hours && WEEKDAYS.some((day) => hours[day].length > 0))
      addError(errors, 'hours', 'a 24x7 calendar (always_open) has no working hours');
    if (holidays && holidays.length > 0)
      addError(errors, 'holidays', 'a 24x7 calendar (always_open) has no holidays');
  } else if (alwaysOpen === false && hours && WEEKDAYS.every((day) => hours[day].length === 0)) {
    addError(errors, 'hours', 'a business calendar needs at least one working interval (or always_open)');
  }

  if (Object.keys(errors).length > 0 || !hours || !holidays) return { ok: false, errors };
  return {
    ok: true,
    value: { time_zone: canonicalZone(zone as string), always_open: alwaysOpen as boolean, hours, holidays },
  };
}

function parseHours(input: unknown, errors: FieldErrors): Record<Weekday, WorkingInterval[]> | null {
  const hours = Object.fromEntries(WEEKDAYS.map((day) => [day, [] as WorkingInterval[]])) as Record<
    Weekday,
    WorkingInterval[]
  >;
  if (input === undefined || input === null) return hours;
  if (!isPlainObject(input)) {
    addError(errors, 'hours', 'hours must be an object keyed by weekday (monday ... sunday)');
    return null;
  }
  const before = Object.keys(errors).length;
  for (const [key, list] of Object.entries(input)) {
    const path = `hours.${key}`;
    if (!(WEEKDAYS as readonly string[]).includes(key)) {
      addError(errors, path, 'Unknown weekday (monday ... sunday)');
      continue;
    }
    if (!Array.isArray(list)) {
      addError(errors, path, 'must be an array of {start, end} intervals');
      continue;
    }
    if (list.length > MAX_INTERVALS_PER_DAY) {
      addError(errors, path, `at most ${MAX_INTERVALS_PER_DAY} intervals a day`);
      continue;
    }
    const intervals: WorkingInterval[] = [];
    list.forEach((entry: unknown, index) => {
      const at = `${path}[${index}]`;
      if (!isPlainObject(entry)) return addError(errors, at, 'interval must be an object {start, end}');
      for (const k of Object.keys(entry))
        if (k !== 'start' && k !== 'end') addError(errors, `${at}.${k}`, 'Unknown property');
      const { start, end } = entry;
      let good = true;
      for (const [name, value] of [
        ['start', start],
        ['end', end],
      ] as const) {
        if (typeof value !== 'string' || !TIME.test(value)) {
          addError(errors, `${at}.${name}`, `${name} must be a local time HH:MM from 00:00 to 24:00`);
          good = false;
        }
      }
      if (!good) return;
      if (start === '24:00') return addError(errors, `${at}.start`, 'start must be before 24:00');
      if (minutesOfTime(start as string) >= minutesOfTime(end as string))
        return addError(errors, at, 'start must be before end');
      intervals.push({ start: start as string, end: end as string });
    });
    intervals.sort((a, b) => minutesOfTime(a.start) - minutesOfTime(b.start));
    for (let i = 1; i < intervals.length; i++) {
      const previous = intervals[i - 1]!;
      const current = intervals[i]!;
      if (minutesOfTime(current.start) < minutesOfTime(previous.end))
        addError(
          errors,
          path,
          `intervals overlap: ${previous.start}-${previous.end} and ${current.start}-${current.end}`,
        );
    }
    hours[key as Weekday] = intervals;
  }
  return Object.keys(errors).length > before ? null : hours;
}

function parseHolidays(input: unknown, errors: FieldErrors): Holiday[] | null {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) {
    addError(errors, 'holidays', 'holidays must be an array of {date, name?}');
    return null;
  }
  if (input.length > MAX_HOLIDAYS) {
    addError(errors, 'holidays', `at most ${MAX_HOLIDAYS} holidays (got ${input.length})`);
    return null;
  }
  const before = Object.keys(errors).length;
  const byDate = new Map<string, Holiday>();
  input.forEach((entry: unknown, index) => {
    const at = `holidays[${index}]`;
    if (!isPlainObject(entry)) return addError(errors, at, 'holiday must be an object {date, name?}');
    for (const k of Object.keys(entry))
      if (k !== 'date' && k !== 'name') addError(errors, `${at}.${k}`, 'Unknown property');
    const { date, name } = entry;
    if (typeof date !== 'string' || !isHolidayDate(date)) {
      addError(
        errors,
        `${at}.date`,
        `date must be a calendar date YYYY-MM-DD between ${MIN_HOLIDAY_YEAR} and ${MAX_HOLIDAY_YEAR}`,
      );
      return;
    }
    if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > MAX_NAME_LENGTH)) {
      addError(errors, `${at}.name`, `name must be a string of at most ${MAX_NAME_LENGTH} characters`);
      return;
    }
    if (!byDate.has(date)) byDate.set(date, { date, name: (name as string | undefined) ?? null });
  });
  if (Object.keys(errors).length > before) return null;
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}
