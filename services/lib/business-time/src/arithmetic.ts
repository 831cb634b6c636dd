/**
 * Business-time arithmetic (docs/sla.md, "Business time"). A real instant is open when its local
 * wall time in the calendar's zone (the offset comes from luxon's IANA zone data) falls on a
 * non-holiday date inside one of that weekday's working intervals. On a DST day a 09:00-17:00
 * interval is therefore what the wall clock shows: a wall time skipped by spring-forward is never
 * open, a wall time repeated by fall-back is open twice. The walk is per constant-offset piece and
 * per local day, never per minute: O(days spanned).
 */
import { IANAZone } from 'luxon';
import { type Calendar, minutesOfTime, WEEKDAYS } from './calendar.js';
import { MAX_SEARCH_DAYS } from './limits.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A calendar prepared for arithmetic (kept per calendar object). */
interface Compiled {
  alwaysOpen: boolean;
  zone: IANAZone;
  /** Index 0 = Monday: [start, end) in ms after local midnight. */
  week: Array<Array<[number, number]>>;
  /** Local dates closed, as days since 1970-01-01. */
  holidays: Set<number>;
}

const compiledCache = new WeakMap<Calendar, Compiled>();

function compile(calendar: Calendar): Compiled {
  let compiled = compiledCache.get(calendar);
  if (compiled) return compiled;
  compiled = {
    alwaysOpen: calendar.always_open,
    zone: IANAZone.create(calendar.time_zone),
    week: WEEKDAYS.map((day) =>
      calendar.hours[day].map((interval): [number, number] => [
        minutesOfTime(interval.start) * MINUTE,
        minutesOfTime(interval.end) * MINUTE,
      ]),
    ),
    holidays: new Set(calendar.holidays.map((holiday) => Date.parse(`${holiday.date}T00:00:00Z`) / DAY)),
  };
  compiledCache.set(calendar, compiled);
  return compiled;
}

/**
 * A zone's offsets over one UTC day: the offset at its start and, when the offset changes during
 * the day, the instant of the change and the offset after it. luxon is asked at each UTC midnight
 * and the change is searched to the millisecond; the answers are memoised per zone and day, so a
 * calendar costs a few lookups per day walked. A zone changing its offset twice within one UTC
 * day is not seen (no IANA zone does in the covered years).
 */
interface ZoneDay {
  offset: number;
  change: number | null;
  after: number;
}

const zoneDays = new Map<string, Map<number, ZoneDay>>();

function luxonOffsetMs(zone: IANAZone, at: number): number {
  return Math.round(zone.offset(at) * MINUTE);
}

function zoneDay(zone: IANAZone, day: number): ZoneDay {
  let memo = zoneDays.get(zone.name);
  if (!memo) zoneDays.set(zone.name, (memo = new Map<number, ZoneDay>()));
  let info = memo.get(day);
  if (info) return info;
  if (memo.size > 200_000) memo.clear();
  const offset = luxonOffsetMs(zone, day * DAY);
  const after = luxonOffsetMs(zone, (day + 1) * DAY);
  let change: number | null = null;
  if (after !== offset) {
    let lo = day * DAY;
    let hi = (day + 1) * DAY;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (luxonOffsetMs(zone, mid) === offset) lo = mid;
      else hi = mid;
    }
    change = hi;
  }
  info = { offset, change, after };
  memo.set(day, info);
  return info;
}

function offsetMs(zone: IANAZone, at: number): number {
  const info = zoneDay(zone, Math.floor(at / DAY));
  return info.change !== null && at >= info.change ? info.after : info.offset;
}

/** The first offset change after `from`, or `limit` when there is none before it. */
function pieceEnd(zone: IANAZone, from: number, limit: number): number {
  for (let day = Math.floor(from / DAY); day * DAY < limit; day++) {
    const { change } = zoneDay(zone, day);
    if (change !== null && change > from) return Math.min(change, limit);
  }
  return limit;
}

/**
 * The open stretches of real time in [from, to), in order, as [start, end) epoch milliseconds.
 * With `to` = Infinity the walk stops after MAX_SEARCH_DAYS days.
 */
export function* openSpans(calendar: Calendar, from: number, to: number): Generator<[number, number]> {
  const end = Math.min(to, from + MAX_SEARCH_DAYS * DAY);
  if (!(from < end)) return;
  const compiled = compile(calendar);
  if (compiled.alwaysOpen) {
    yield [from, end];
    return;
  }
  const { zone, week, holidays } = compiled;
  let start = from;
  while (start < end) {
    const offset = offsetMs(zone, start);
    const stop = pieceEnd(zone, start, end);
    const wallStart = start + offset;
    const wallEnd = stop + offset;
    for (let day = Math.floor(wallStart / DAY); day * DAY < wallEnd; day++) {
      if (holidays.has(day)) continue;
      // 1970-01-01 was a Thursday (index 3 with Monday = 0).
      const intervals = week[(((day + 3) % 7) + 7) % 7]!;
      const midnight = day * DAY;
      for (const [open, close] of intervals) {
        const low = Math.max(midnight + open, wallStart);
        const high = Math.min(midnight + close, wallEnd);
        if (low < high) yield [low - offset, high - offset];
      }
    }
    start = stop;
  }
}

/**
 * The instant at which `minutes` business minutes have passed after `from` (fractions allowed);
 * `from` itself when minutes <= 0; null when the calendar does not reach it within
 * MAX_SEARCH_DAYS days (docs/sla.md, "Limits").
 */
export function addBusinessMinutes(calendar: Calendar, from: Date, minutes: number): Date | null {
  const at = addBusinessMs(calendar, from.getTime(), minutes * MINUTE);
  return at === null ? null : new Date(at);
}

/** addBusinessMinutes on epoch milliseconds. */
export function addBusinessMs(calendar: Calendar, from: number, amount: number): number | null {
  if (!Number.isFinite(from) || Number.isNaN(amount)) return null;
  if (amount <= 0) return from;
  let left = amount;
  for (const [start, end] of openSpans(calendar, from, Infinity)) {
    const length = end - start;
    if (left <= length) return start + left;
    left -= length;
  }
  return null;
}

/** Business minutes between a and b (negative when b is before a). */
export function businessMinutesBetween(calendar: Calendar, a: Date, b: Date): number {
  return businessMsBetween(calendar, a.getTime(), b.getTime()) / MINUTE;
}

/** businessMinutesBetween on epoch milliseconds, in milliseconds. */
export function businessMsBetween(calendar: Calendar, a: number, b: number): number {
  if (b < a) return -businessMsBetween(calendar, b, a);
  let total = 0;
  for (const [start, end] of openSpansUnbounded(calendar, a, b)) total += end - start;
  return total;
}

/** openSpans over a finite range longer than the search horizon, horizon by horizon. */
function* openSpansUnbounded(calendar: Calendar, from: number, to: number): Generator<[number, number]> {
  for (let start = from; start < to; start += MAX_SEARCH_DAYS * DAY)
    yield* openSpans(calendar, start, Math.min(to, start + MAX_SEARCH_DAYS * DAY));
}
