/**
 * @tix/business-time: the pure core of SLAs (docs/sla.md). No I/O.
 * - validateCalendar / importIcal: business calendars and their holidays;
 * - addBusinessMinutes / businessMinutesBetween: business-time arithmetic across DST;
 * - validatePolicy / selectPolicy: SLA policies and which one applies to a ticket;
 * - computeClocks: the SLA clocks of a ticket from its history.
 */
export * from './limits.js';
export type { FieldErrors, Result } from './types.js';
export {
  ALWAYS_OPEN,
  type Calendar,
  type Holiday,
  isKnownZone,
  validateCalendar,
  WEEKDAYS,
  type Weekday,
  type WorkingInterval,
} from './calendar.js';
export {
  addBusinessMinutes,
  addBusinessMs,
  businessMinutesBetween,
  businessMsBetween,
  openSpans,
} from './arithmetic.js';
export { importIcal, type IcalImport } from './ical.js';
export {
  matchesFilter,
  type Policy,
  type PolicyFilter,
  selectPolicy,
  type Target,
  TARGET_KINDS,
  type TargetKind,
  type TicketFacts,
  validatePolicies,
  validatePolicy,
} from './policy.js';
export {
  type ClockInput,
  type Clocks,
  type ClockState,
  computeClocks,
  type SlaEvent,
  type TargetClock,
} from './clock.js';
