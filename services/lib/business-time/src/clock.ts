/**
 * The SLA clock engine (docs/sla.md, "Clocks"): a ticket's ordered history in, each target's
 * clock at `now` out. Pure and deterministic: the same history, policies, calendars and `now`
 * always give the same answer, so the service can recompute a ticket's clocks at any event.
 *
 * - Cycles do not depend on the policy: first response and resolution start at creation, the
 *   periodic update at creation and again at every public staff reply, next response at a
 *   customer message once a staff reply has been made and no next-response cycle is running.
 * - What a minute counts for does: the policy in force (re-selected at every facts, policy or
 *   calendar change) gives each target's minutes, mode (business: its calendar's open minutes;
 *   calendar: every minute) and pausing statuses. A closed status pauses every target (and meets
 *   resolution); a target the policy in force lacks counts nothing.
 * - Paused time never counts: a cycle resumes where it stopped (a reopened ticket's resolution
 *   keeps its elapsed time).
 * - A running cycle is breached at the instant its elapsed time reaches the target in force
 *   (at once when an edit lowers the target below it); breached stays breached for that cycle,
 *   even when it is met later.
 */
import { addBusinessMs, businessMsBetween } from './arithmetic.js';
import { ALWAYS_OPEN, type Calendar } from './calendar.js';
import {
  type Policy,
  selectPolicy,
  type Target,
  TARGET_KINDS,
  type TargetKind,
  type TicketFacts,
} from './policy.js';
import { type FieldErrors, isPlainObject } from './types.js';

const MINUTE = 60_000;

export type SlaEvent =
  | { type: 'created'; at: Date; facts: TicketFacts; status: string; closed?: boolean }
  | { type: 'status_changed'; at: Date; to: string; closed: boolean }
  | { type: 'staff_public_reply'; at: Date }
  | { type: 'customer_message'; at: Date }
  | { type: 'facts_changed'; at: Date; facts: Partial<TicketFacts> }
  | { type: 'policies_changed'; at: Date; policies: Policy[] }
  | { type: 'calendar_changed'; at: Date; calendar_id: string; calendar: Calendar | null };

export type ClockState = 'active' | 'paused' | 'met' | 'breached';

export interface TargetClock {
  target: TargetKind;
  state: ClockState;
  mode: Target['mode'];
  target_minutes: number;
  /** When the current cycle started. */
  started_at: Date;
  elapsed_minutes: number;
  /** Minutes left (0 once breached), in the target's mode. */
  remaining_minutes: number;
  /** Active: when it will be breached if nothing changes (null beyond the search horizon);
   * breached: when it was; paused and met: null. */
  due_at: Date | null;
  met_at: Date | null;
  breached_at: Date | null;
  /** Active and more than warn_before_minutes left: when that much will be left. */
  warning_at: Date | null;
}

export interface Clocks {
  /** The policy in force at `now` (null: no policy applies, no clocks). */
  policy_id: string | null;
  targets: TargetClock[];
  /** The earliest due_at of an active target. */
  next_breach_at: Date | null;
  /** The earliest warning_at of an active target. */
  next_warning_at: Date | null;
}

export interface ClockInput {
  /** The project's ordered policies at creation (later edits come as policies_changed). */
  policies: readonly Policy[];
  /** Calendars by id at creation (later edits come as calendar_changed). */
  calendars: Readonly<Record<string, Calendar>>;
  /** Ordered by `at` (events at one instant apply in the given order); starts with created. */
  history: readonly SlaEvent[];
  now: Date;
}

interface Cycle {
  startedAt: number;
  elapsed: number;
  /** Started and not met (it may be paused). */
  running: boolean;
  metAt: number | null;
  breachedAt: number | null;
}

interface State {
  facts: TicketFacts;
  status: string;
  closed: boolean;
  policies: readonly Policy[];
  calendars: Record<string, Calendar | null>;
  policy: Policy | null;
  repliedOnce: boolean;
  cycles: Partial<Record<TargetKind, Cycle>>;
}

/** The clocks at `now`, or field errors for a malformed history (never throws). */
export function computeClocks(
  input: ClockInput,
): { ok: true; value: Clocks } | { ok: false; errors: FieldErrors } {
  const problem = historyProblem(input);
  if (problem) return { ok: false, errors: { history: [problem] } };
  const [created, ...rest] = input.history as [Extract<SlaEvent, { type: 'created' }>, ...SlaEvent[]];
  const start = created.at.getTime();
  const state: State = {
    facts: normaliseFacts(created.facts),
    status: created.status,
    closed: false,
    policies: input.policies,
    calendars: { ...input.calendars },
    policy: null,
    repliedOnce: false,
    cycles: {},
  };
  reselect(state);
  state.cycles.first_response = newCycle(start);
  state.cycles.resolution = newCycle(start);
  state.cycles.periodic_update = newCycle(start);
  if (created.closed)
    apply(state, { type: 'status_changed', at: created.at, to: created.status, closed: true });
  checkBreaches(state, start);

  let clock = start;
  for (const event of rest) {
    const at = event.at.getTime();
    accrue(state, clock, at);
    clock = at;
    apply(state, event);
    checkBreaches(state, at);
  }
  const now = input.now.getTime();
  accrue(state, clock, now);
  return { ok: true, value: report(state, now) };
}

function newCycle(at: number): Cycle {
  return { startedAt: at, elapsed: 0, running: true, metAt: null, breachedAt: null };
}

function normaliseFacts(facts: TicketFacts): TicketFacts {
  return {
    priority: facts.priority,
    ticket_type: facts.ticket_type ?? null,
    organization: facts.organization ?? null,
    requester: facts.requester ?? null,
    tags: facts.tags ?? [],
    custom_fields: facts.custom_fields ?? {},
  };
}

/** A policy can be used when every business target has its calendar. */
function usable(state: State): (policy: Policy) => boolean {
  return (policy) =>
    Object.values(policy.targets).every(
      (target) =>
        target.mode === 'calendar' || (policy.calendar_id !== null && !!state.calendars[policy.calendar_id]),
    );
}

function reselect(state: State): void {
  state.policy = selectPolicy(state.policies, state.facts, usable(state));
}

/** The calendar a target counts on under the policy in force, or null when it does not count now. */
function countingCalendar(state: State, kind: TargetKind): Calendar | null {
  const cycle = state.cycles[kind];
  const target = state.policy?.targets[kind];
  if (!cycle?.running || !target || state.closed || target.pause_statuses.includes(state.status)) return null;
  if (target.mode === 'calendar') return ALWAYS_OPEN;
  return state.calendars[state.policy!.calendar_id!] ?? null;
}

function accrue(state: State, from: number, to: number): void {
  if (!(to > from)) return;
  for (const kind of TARGET_KINDS) {
    const calendar = countingCalendar(state, kind);
    if (!calendar) continue;
    const cycle = state.cycles[kind]!;
    const targetMs = state.policy!.targets[kind]!.minutes * MINUTE;
    const open = businessMsBetween(calendar, from, to);
    if (cycle.breachedAt === null && cycle.elapsed + open >= targetMs)
      cycle.breachedAt = addBusinessMs(calendar, from, targetMs - cycle.elapsed);
    cycle.elapsed += open;
  }
}

function checkBreaches(state: State, at: number): void {
  for (const kind of TARGET_KINDS) {
    const cycle = state.cycles[kind];
    const target = state.policy?.targets[kind];
    if (cycle?.running && target && cycle.breachedAt === null && cycle.elapsed >= target.minutes * MINUTE)
      cycle.breachedAt = at;
  }
}

function apply(state: State, event: SlaEvent): void {
  const at = event.at.getTime();
  const { cycles } = state;
  switch (event.type) {
    case 'created':
      return;
    case 'status_changed': {
      const wasClosed = state.closed;
      state.status = event.to;
      state.closed = event.closed;
      const resolution = cycles.resolution;
      if (!resolution) return;
      if (event.closed && resolution.running) {
        resolution.running = false;
        resolution.metAt = at;
      } else if (!event.closed && wasClosed && !resolution.running) {
        resolution.running = true;
        resolution.metAt = null;
      }
      return;
    }
    case 'staff_public_reply': {
      state.repliedOnce = true;
      for (const kind of ['first_response', 'next_response'] as const) {
        const cycle = cycles[kind];
        if (cycle?.running) {
          cycle.running = false;
          cycle.metAt = at;
        }
      }
      cycles.periodic_update = newCycle(at);
      return;
    }
    case 'customer_message': {
      if (state.repliedOnce && !cycles.next_response?.running) cycles.next_response = newCycle(at);
      return;
    }
    case 'facts_changed':
      state.facts = normaliseFacts({ ...state.facts, ...event.facts });
      return reselect(state);
    case 'policies_changed':
      state.policies = event.policies;
      return reselect(state);
    case 'calendar_changed':
      state.calendars[event.calendar_id] = event.calendar;
      return reselect(state);
  }
}

function report(state: State, now: number): Clocks {
  const targets: TargetClock[] = [];
  const policy = state.policy;
  for (const kind of TARGET_KINDS) {
    const target = policy?.targets[kind];
    const cycle = state.cycles[kind];
    if (!target || !cycle) continue;
    const targetMs = target.minutes * MINUTE;
    const remaining = Math.max(0, targetMs - cycle.elapsed);
    const calendar = countingCalendar(state, kind);
    let clockState: ClockState;
    if (cycle.breachedAt !== null) clockState = 'breached';
    else if (!cycle.running) clockState = 'met';
    else if (!calendar) clockState = 'paused';
    else clockState = 'active';
    let dueAt: number | null = null;
    let warningAt: number | null = null;
    if (clockState === 'breached') dueAt = cycle.breachedAt;
    if (clockState === 'active') {
      dueAt = addBusinessMs(calendar!, now, remaining);
      const warnMs = (target.warn_before_minutes ?? 0) * MINUTE;
      if (target.warn_before_minutes !== null && remaining > warnMs)
        warningAt = addBusinessMs(calendar!, now, remaining - warnMs);
    }
    targets.push({
      target: kind,
      state: clockState,
      mode: target.mode,
      target_minutes: target.minutes,
      started_at: new Date(cycle.startedAt),
      elapsed_minutes: cycle.elapsed / MINUTE,
      remaining_minutes: clockState === 'breached' ? 0 : remaining / MINUTE,
      due_at: dueAt === null ? null : new Date(dueAt),
      met_at: cycle.metAt === null ? null : new Date(cycle.metAt),
      breached_at: cycle.breachedAt === null ? null : new Date(cycle.breachedAt),
      warning_at: warningAt === null ? null : new Date(warningAt),
    });
  }
  const earliest = (values: Array<Date | null>): Date | null =>
    values.reduce<Date | null>((min, v) => (v !== null && (min === null || v < min) ? v : min), null);
  const active = targets.filter((t) => t.state === 'active');
  return {
    policy_id: policy?.id ?? null,
    targets,
    next_breach_at: earliest(active.map((t) => t.due_at)),
    next_warning_at: earliest(active.map((t) => t.warning_at)),
  };
}

const EVENT_TYPES = new Set([
  'created',
  'status_changed',
  'staff_public_reply',
  'customer_message',
  'facts_changed',
  'policies_changed',
  'calendar_changed',
]);

function historyProblem(input: ClockInput): string | null {
  if (!isPlainObject(input) || !Array.isArray(input.history)) return 'history must be an array of events';
  if (!(input.now instanceof Date) || Number.isNaN(input.now.getTime())) return 'now must be a valid instant';
  const history = input.history as unknown[];
  const first = history[0];
  if (!isPlainObject(first) || first.type !== 'created') return 'history must start with a created event';
  if (
    !isPlainObject(first.facts) ||
    typeof first.facts.priority !== 'string' ||
    typeof first.status !== 'string'
  )
    return 'the created event needs facts (with a priority) and a status';
  let previous = -Infinity;
  for (const [index, event] of history.entries()) {
    if (!isPlainObject(event) || !EVENT_TYPES.has(event.type as string))
      return `event ${index} has an unknown type`;
    if (index > 0 && event.type === 'created') return `event ${index}: created may only come first`;
    if (!(event.at instanceof Date) || Number.isNaN(event.at.getTime()))
      return `event ${index} has no valid instant`;
    const at = event.at.getTime();
    if (at < previous) return `event ${index} is earlier than the event before it`;
    previous = at;
    if (
      event.type === 'status_changed' &&
      (typeof event.to !== 'string' || typeof event.closed !== 'boolean')
    )
      return `event ${index}: status_changed needs to (a status) and closed (a boolean)`;
    if (event.type === 'facts_changed' && !isPlainObject(event.facts))
      return `event ${index}: facts_changed needs facts (an object)`;
    if (event.type === 'policies_changed' && !Array.isArray(event.policies))
      return `event ${index}: policies_changed needs policies (the ordered list)`;
    if (
      event.type === 'calendar_changed' &&
      (typeof event.calendar_id !== 'string' || (event.calendar !== null && !isPlainObject(event.calendar)))
    )
      return `event ${index}: calendar_changed needs a calendar_id and a calendar (or null)`;
  }
  if (input.now.getTime() < previous) return 'now is earlier than the last event';
  return null;
}
