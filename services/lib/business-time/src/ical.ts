/**
 * Holidays from an iCalendar file (docs/sla.md, "Importing holidays"): every VEVENT becomes the
 * local dates it covers, as written in the file (an all-day event from DTSTART to the day before
 * DTEND; a timed event from its start date to its end date, an end at midnight not included).
 * Only dates from January 1st of `fromYear` (default: the current year) over ICAL_HORIZON_YEARS
 * years are kept; recurring events (RRULE, with their EXDATEs) are expanded over that horizon.
 * Garbage is answered with a field error, never thrown.
 */
import ICAL from 'ical.js';
import type { Holiday } from './calendar.js';
import { isHolidayDate } from './calendar.js';
import { ICAL_HORIZON_YEARS, MAX_HOLIDAYS, MAX_ICAL_LENGTH, MAX_NAME_LENGTH } from './limits.js';
import type { Result } from './types.js';

export interface IcalImport {
  /** Sorted by date, one entry per date (the first event's summary wins). */
  holidays: Holiday[];
  /** Dates outside the horizon (or the accepted years), left out. */
  skipped: number;
}

/** The longest single event taken, in days (a longer one is refused as not a holiday). */
const MAX_EVENT_DAYS = 366;
/** Occurrences looked at per recurring event before giving up on it. */
const MAX_OCCURRENCES = 5_000;

export function importIcal(text: unknown, options: { fromYear?: number } = {}): Result<IcalImport> {
  const refuse = (message: string): Result<IcalImport> => ({ ok: false, errors: { ical: [message] } });
  if (typeof text !== 'string') return refuse('ical must be the text of an iCalendar file');
  if (text.length > MAX_ICAL_LENGTH)
    return refuse(`the iCalendar file is too large (at most ${MAX_ICAL_LENGTH} characters)`);
  if (!/BEGIN:VCALENDAR/i.test(text)) return refuse('not an iCalendar file (no BEGIN:VCALENDAR)');
  const fromYear = options.fromYear ?? new Date().getUTCFullYear();
  const untilYear = fromYear + ICAL_HORIZON_YEARS - 1;

  let events: InstanceType<typeof ICAL.Event>[];
  try {
    const parsed: unknown = ICAL.parse(text);
    const root = new ICAL.Component(parsed as string | unknown[]);
    const calendars = root.name === 'vcalendar' ? [root] : root.getAllSubcomponents('vcalendar');
    events = calendars.flatMap((calendar) =>
      calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent)),
    );
  } catch (error) {
    return refuse(`not a valid iCalendar file: ${describe(error)}`);
  }

  const byDate = new Map<string, Holiday>();
  let skipped = 0;
  try {
    for (const [index, event] of events.entries()) {
      const start = event.startDate;
      if (!start) return refuse(`event ${index + 1} has no DTSTART`);
      for (const name of ['dtstart', 'dtend']) {
        const raw: unknown = event.component.getFirstProperty(name)?.jCal[3];
        if (raw !== undefined && !isWrittenDate(raw))
          return refuse(`event ${index + 1} has an impossible ${name.toUpperCase()} (not a calendar date)`);
      }
      const name = typeof event.summary === 'string' ? event.summary.slice(0, MAX_NAME_LENGTH) : null;
      const starts: InstanceType<typeof ICAL.Time>[] = [];
      if (event.isRecurring()) {
        const iterator = event.iterator();
        for (let n = 0; n < MAX_OCCURRENCES; n++) {
          const next = iterator.next();
          if (!next || next.year > untilYear) break;
          if (next.year >= fromYear) starts.push(next);
        }
      } else starts.push(start);
      for (const occurrence of starts) {
        let end = event.endDate;
        if (event.isRecurring()) {
          end = occurrence.clone();
          end.addDuration(event.duration);
        }
        const dates = datesCovered(occurrence, end);
        if (dates === null)
          return refuse(`event ${index + 1} ("${name ?? ''}") lasts more than ${MAX_EVENT_DAYS} days`);
        for (const date of dates) {
          const year = Number(date.slice(0, 4));
          if (!isHolidayDate(date) || year < fromYear || year > untilYear) {
            skipped++;
            continue;
          }
          if (!byDate.has(date)) byDate.set(date, { date, name });
          if (byDate.size > MAX_HOLIDAYS)
            return refuse(`the file has more than ${MAX_HOLIDAYS} holiday dates`);
        }
      }
    }
  } catch (error) {
    return refuse(`the iCalendar events cannot be read: ${describe(error)}`);
  }
  const holidays = [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
  return { ok: true, value: { holidays, skipped } };
}

function datesCovered(
  start: InstanceType<typeof ICAL.Time>,
  end: InstanceType<typeof ICAL.Time> | null | undefined,
): string[] | null {
  const first = dateOf(start);
  let last = first;
  if (end && end.compare(start) > 0) {
    const endDate = dateOf(end);
    const endsAtMidnight = end.isDate || (end.hour === 0 && end.minute === 0 && end.second === 0);
    const lastMs = Date.parse(`${endDate}T00:00:00Z`) - (endsAtMidnight ? 86_400_000 : 0);
    last = new Date(Math.max(lastMs, Date.parse(`${first}T00:00:00Z`))).toISOString().slice(0, 10);
  }
  const dates: string[] = [];
  for (let ms = Date.parse(`${first}T00:00:00Z`); ms <= Date.parse(`${last}T00:00:00Z`); ms += 86_400_000) {
    if (dates.length >= MAX_EVENT_DAYS) return null;
    dates.push(new Date(ms).toISOString().slice(0, 10));
  }
  return dates;
}

/** A DTSTART/DTEND value as ical.js read it: a real date, with or without a time of day. */
function isWrittenDate(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  const match = /^(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)Z?)?$/.exec(raw);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const utc = new Date(Date.UTC(year, month - 1, day));
  return utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day;
}

function dateOf(time: InstanceType<typeof ICAL.Time>): string {
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  return `${pad(time.year, 4)}-${pad(time.month, 2)}-${pad(time.day, 2)}`;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200);
}
