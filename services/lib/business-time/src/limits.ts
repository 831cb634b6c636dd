/**
 * The bounds of the SLA core (docs/sla.md, "Limits"). The gateway publishes them in the contract;
 * every input past one is refused with a field error (422), never computed.
 */

/** Working intervals on one weekday. */
export const MAX_INTERVALS_PER_DAY = 12;
/** Holidays on one calendar (entered or imported). */
export const MAX_HOLIDAYS = 1_000;
/** Holiday dates are accepted from this year ... */
export const MIN_HOLIDAY_YEAR = 1970;
/** ... to this one. */
export const MAX_HOLIDAY_YEAR = 2200;
/** The smallest target, in minutes (a target of 0 is refused). */
export const MIN_TARGET_MINUTES = 1;
/** The largest target: 365 days of minutes (a target of 10 years is refused). */
export const MAX_TARGET_MINUTES = 525_600;
/** Statuses in one target's pausing list. */
export const MAX_PAUSE_STATUSES = 50;
/** Values in one filter criterion (priorities, tags, organizations, ...). */
export const MAX_FILTER_VALUES = 100;
/** Custom fields named by one filter. */
export const MAX_FILTER_CUSTOM_FIELDS = 20;
/** Policies of one project. */
export const MAX_POLICIES = 100;
/** An iCal file to import, in UTF-16 code units of its text. */
export const MAX_ICAL_LENGTH = 1_048_576;
/** Recurring iCal events are expanded over this many years from the import's start year. */
export const ICAL_HORIZON_YEARS = 10;
/**
 * How far ahead a due time is searched, in days of calendar time. A target that a very sparse
 * calendar cannot reach within this horizon has no due time (`due_at` null). With the largest
 * target (525,600 minutes) a calendar of 8 hours a week reaches it in about 21 years, so the
 * horizon is 25 years: every calendar of at least that much working time gets a due time.
 */
export const MAX_SEARCH_DAYS = 25 * 366;
/** Name lengths (holiday, policy) in characters. */
export const MAX_NAME_LENGTH = 200;
