/**
 * THE property test (issue 29): random ticket histories (status changes with pauses, customer and
 * staff messages, facts, policy and calendar edits, DST changes in New York and Berlin, holidays),
 * each clock compared with a brute-force oracle that walks every minute from creation and counts
 * it when the calendar is open at that minute in its zone and the target is not paused.
 * SLA_PROPERTY_RUNS (default 10,000) and SLA_PROPERTY_SEED choose the run; a failure prints both.
 */
import { expect } from 'chai';
import { DateTime } from 'luxon';
import {
  type Calendar,
  computeClocks,
  type Policy,
  type SlaEvent,
  type TargetKind,
  type TicketFacts,
  validateCalendar,
  validatePolicy,
  WEEKDAYS,
} from '../../src/index.js';

const MIN = 60_000;
const DAY = 86_400_000;
const KINDS: TargetKind[] = ['first_response', 'next_response', 'resolution', 'periodic_update'];
const STATUSES = ['open', 'work_in_progress', 'waiting', 'on_hold', 'closed', 'solved'];
const CLOSED = new Set(['closed', 'solved']);
const PRIORITIES = ['low', 'medium', 'high', 'critical'];
const TAGS = ['vip', 'billing', 'urgent'];
const ZONES = ['America/New_York', 'Europe/Berlin'];
/** DST changes in both zones (spring forward, fall back), near which half the histories start. */
const DST_CHANGES = [
  '2026-03-08T07:00:00Z',
  '2026-11-01T06:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
  '2027-03-14T07:00:00Z',
  '2027-10-31T01:00:00Z',
].map(Date.parse);

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  subset<T>(list: readonly T[]): T[] {
    return list.filter(() => this.chance(0.5));
  }
}

const hhmm = (minutes: number): string =>
  minutes === 1440
    ? '24:00'
    : `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

function genCalendar(g: Gen, around: number): Calendar {
  if (g.chance(0.1)) return ok(validateCalendar({ time_zone: g.pick(ZONES), always_open: true }));
  const hours: Record<string, Array<{ start: string; end: string }>> = {};
  let weekly = 0;
  for (const day of WEEKDAYS) {
    const style = g.int(0, 9);
    let intervals: Array<[number, number]> = [];
    if (style === 0) intervals = [];
    else if (style === 1) intervals = [[0, 1440]];
    else if (style === 2)
      intervals = [[0, 240]]; // covers the DST hour in both zones
    else if (style === 3)
      intervals = [
        [90, 150],
        [150, 200],
        [540, 1020],
      ]; // 01:30-02:30, touching
    else {
      let at = g.int(0, 600);
      for (let i = g.int(1, 3); i > 0 && at < 1440; i--) {
        const end = Math.min(1440, at + g.int(1, 480));
        intervals.push([at, end]);
        at = end + g.int(0, 240);
      }
    }
    hours[day] = intervals.map(([s, e]) => ({ start: hhmm(s), end: hhmm(e) }));
    weekly += intervals.reduce((sum, [s, e]) => sum + e - s, 0);
  }
  if (weekly < 600) hours.wednesday = [{ start: '08:00', end: '20:00' }];
  const holidays = Array.from({ length: g.int(0, 4) }, () => ({
    date: new Date(around + g.int(-3, 20) * DAY).toISOString().slice(0, 10),
  }));
  return ok(validateCalendar({ time_zone: g.pick(ZONES), hours, holidays }));
}

function genPolicies(g: Gen): Policy[] {
  const count = g.int(1, 3);
  return Array.from({ length: count }, (_, index) => {
    const filter: Record<string, unknown> = {};
    if (g.chance(0.4)) filter.priorities = [g.pick(PRIORITIES), g.pick(PRIORITIES)];
    if (g.chance(0.3)) filter.tags_any = [g.pick(TAGS)];
    if (g.chance(0.2)) filter.tags_none = [g.pick(TAGS)];
    if (g.chance(0.2)) filter.custom_fields = { plan: [g.pick(['gold', 'basic'])] };
    if (
      filter.tags_any &&
      filter.tags_none &&
      (filter.tags_any as string[])[0] === (filter.tags_none as string[])[0]
    )
      delete filter.tags_none;
    const targets: Record<string, unknown> = {};
    for (const kind of KINDS) {
      if (!g.chance(0.75)) continue;
      const minutes = g.chance(0.35) ? g.int(1, 120) : g.int(60, 2000);
      targets[kind] = {
        minutes,
        mode: g.chance(0.25) ? 'calendar' : 'business',
        pause_statuses: g.subset(['waiting', 'on_hold', 'work_in_progress']),
        warn_before_minutes: g.chance(0.5) && minutes > 1 ? g.int(1, minutes - 1) : null,
      };
    }
    if (Object.keys(targets).length === 0) targets.resolution = { minutes: g.int(1, 2000), mode: 'business' };
    return ok(
      validatePolicy({
        id: `p${index}`,
        name: `P${index}`,
        calendar_id: g.pick(['c1', 'c2', 'c3']),
        filter,
        targets,
      }),
    );
  });
}

function genFacts(g: Gen): TicketFacts {
  return {
    priority: g.pick(PRIORITIES),
    ticket_type: g.pick(['bug', 'question']),
    organization: g.pick(['o1', 'o2', null]),
    requester: 'r1',
    tags: g.subset(TAGS),
    custom_fields: { plan: g.pick(['gold', 'basic']) },
  };
}

interface Case {
  policies: Policy[];
  calendars: Record<string, Calendar>;
  history: SlaEvent[];
  now: Date;
}

function genCase(g: Gen): Case {
  const start = g.chance(0.6)
    ? Math.floor((g.pick(DST_CHANGES) - g.int(0, 3 * 1440) * MIN) / MIN) * MIN
    : Date.UTC(2026, 0, 1) + g.int(0, 700 * 1440) * MIN;
  const calendars: Record<string, Calendar> = { c1: genCalendar(g, start), c2: genCalendar(g, start) };
  const history: SlaEvent[] = [{ type: 'created', at: new Date(start), facts: genFacts(g), status: 'open' }];
  let at = start;
  for (let n = g.int(0, 12); n > 0; n--) {
    at += (g.chance(0.15) ? 0 : g.chance(0.75) ? g.int(1, 300) : g.int(300, 2 * 1440)) * MIN;
    const when = new Date(at);
    const kind = g.int(0, 11);
    if (kind <= 2) {
      const to = g.pick(STATUSES);
      history.push({ type: 'status_changed', at: when, to, closed: CLOSED.has(to) });
    } else if (kind <= 4) history.push({ type: 'staff_public_reply', at: when });
    else if (kind <= 7) history.push({ type: 'customer_message', at: when });
    else if (kind === 8)
      history.push({
        type: 'facts_changed',
        at: when,
        facts: { priority: g.pick(PRIORITIES), tags: g.subset(TAGS) },
      });
    else if (kind === 9) history.push({ type: 'policies_changed', at: when, policies: genPolicies(g) });
    else if (kind === 10)
      history.push({
        type: 'calendar_changed',
        at: when,
        calendar_id: g.pick(['c1', 'c2']),
        calendar: genCalendar(g, at),
      });
    else
      history.push({
        type: 'calendar_changed',
        at: when,
        calendar_id: 'c3',
        calendar: g.chance(0.5) ? genCalendar(g, at) : null,
      });
  }
  const now = new Date(at + (g.chance(0.2) ? 0 : g.int(1, 1440)) * MIN);
  return { policies: genPolicies(g), calendars, history, now };
}

// ---------------------------------------------------------------- the oracle, minute by minute

/** Offsets per zone and 15-minute UTC block (every offset change in these zones is on one). */
const offsetCache = new Map<string, Map<number, number>>();
function offsetMinutes(zone: string, t: number): number {
  const block = Math.floor(t / (15 * MIN));
  let perZone = offsetCache.get(zone);
  if (!perZone) offsetCache.set(zone, (perZone = new Map()));
  let offset = perZone.get(block);
  if (offset === undefined) {
    offset = DateTime.fromMillis(block * 15 * MIN, { zone }).offset;
    perZone.set(block, offset);
  }
  return offset;
}

/** A calendar as the oracle reads it: one open flag per minute of each weekday (0 = Sunday). */
interface OracleCalendar {
  always: boolean;
  zone: string;
  minutes: Uint8Array[];
  /** Holidays as days since 1970-01-01 of the local date. */
  holidays: Set<number>;
  /** The last 15-minute UTC block looked at, and its offset. */
  block: number;
  offset: number;
}
const JS_DAY_TO_NAME = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
const oracleCalendars = new WeakMap<Calendar, OracleCalendar>();
function oracleCalendar(calendar: Calendar): OracleCalendar {
  let found = oracleCalendars.get(calendar);
  if (found) return found;
  const toMinutes = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3));
  found = {
    always: calendar.always_open,
    zone: calendar.time_zone,
    minutes: JS_DAY_TO_NAME.map((name) => {
      const flags = new Uint8Array(1440);
      for (const i of calendar.hours[name]) flags.fill(1, toMinutes(i.start), toMinutes(i.end));
      return flags;
    }),
    holidays: new Set(calendar.holidays.map((h) => Date.parse(`${h.date}T00:00:00Z`) / DAY)),
    block: NaN,
    offset: 0,
  };
  oracleCalendars.set(calendar, found);
  return found;
}

/** Is the minute starting at t open on this calendar (its local wall time in a working interval)? */
function openAt(calendar: Calendar, t: number): boolean {
  const c = oracleCalendar(calendar);
  if (c.always) return true;
  const block = Math.floor(t / (15 * MIN));
  if (block !== c.block) {
    c.block = block;
    c.offset = offsetMinutes(c.zone, t) * MIN;
  }
  const wall = t + c.offset;
  const day = Math.floor(wall / DAY);
  const minute = (wall - day * DAY) / MIN;
  // 1970-01-01 (day 0) was a Thursday: JS weekday 4.
  if (c.minutes[(day + 4) % 7]![minute] === 0) return false;
  return !c.holidays.has(day);
}

function oracleMatches(policy: Policy, facts: TicketFacts): boolean {
  const f = policy.filter;
  if (f.priorities && !f.priorities.includes(facts.priority)) return false;
  if (f.tags_any && !f.tags_any.some((t) => facts.tags.includes(t))) return false;
  if (f.tags_none && f.tags_none.some((t) => facts.tags.includes(t))) return false;
  if (
    f.custom_fields &&
    !Object.entries(f.custom_fields).every(([k, v]) => v.includes(facts.custom_fields[k] as string))
  )
    return false;
  return true;
}

interface OCycle {
  started: number;
  elapsed: number;
  running: boolean;
  met: number | null;
  breached: number | null;
}

interface Expected {
  policy_id: string | null;
  targets: Array<{
    target: TargetKind;
    state: string;
    elapsed_minutes: number;
    remaining_minutes: number;
    started_at: number;
    due_at: number | null;
    met_at: number | null;
    breached_at: number | null;
    warning_at: number | null;
  }>;
}

const HORIZON_AFTER_NOW = 70 * DAY;
let walked = 0;

function oracle(c: Case): Expected | 'beyond' {
  const created = c.history[0] as Extract<SlaEvent, { type: 'created' }>;
  let facts = { ...created.facts };
  let status = created.status;
  let closed = false;
  let policies = c.policies;
  const calendars: Record<string, Calendar | null> = { ...c.calendars };
  let replied = false;
  const start = created.at.getTime();
  const now = c.now.getTime();
  const cycles: Partial<Record<TargetKind, OCycle>> = {
    first_response: { started: start, elapsed: 0, running: true, met: null, breached: null },
    resolution: { started: start, elapsed: 0, running: true, met: null, breached: null },
    periodic_update: { started: start, elapsed: 0, running: true, met: null, breached: null },
  };
  const select = (): Policy | null =>
    policies.find(
      (p) =>
        Object.values(p.targets).every((t) => t.mode === 'calendar' || !!calendars[p.calendar_id!]) &&
        oracleMatches(p, facts),
    ) ?? null;
  let policy = select();
  const counts = (kind: TargetKind, t: number): boolean => {
    const cycle = cycles[kind];
    const target = policy?.targets[kind];
    if (!cycle?.running || !target || closed || target.pause_statuses.includes(status)) return false;
    if (target.mode === 'calendar') return true;
    if (openMinute !== t) {
      openMinute = t;
      open = openAt(calendars[policy!.calendar_id!]!, t);
    }
    return open;
  };
  let openMinute = -1;
  let open = false;
  const notPaused = (kind: TargetKind): boolean => {
    const cycle = cycles[kind];
    const target = policy?.targets[kind];
    return !!cycle?.running && !!target && !closed && !target.pause_statuses.includes(status);
  };
  const checkBreaches = (t: number): void => {
    for (const kind of KINDS) {
      const cycle = cycles[kind];
      const target = policy?.targets[kind];
      if (cycle?.running && target && cycle.breached === null && cycle.elapsed >= target.minutes)
        cycle.breached = t;
    }
  };
  let index = 1;
  let expected: Expected | null = null;
  const pending = new Map<
    TargetKind,
    { due: number | null; warnAt: number | null; warnLeft: number | null }
  >();
  for (let t = start; ; t += MIN) {
    walked++;
    while (index < c.history.length && c.history[index]!.at.getTime() === t) {
      const e = c.history[index++]!;
      if (e.type === 'status_changed') {
        const was = closed;
        status = e.to;
        closed = e.closed;
        const r = cycles.resolution!;
        if (e.closed && r.running) {
          r.running = false;
          r.met = t;
        } else if (!e.closed && was && !r.running) {
          r.running = true;
          r.met = null;
        }
      } else if (e.type === 'staff_public_reply') {
        replied = true;
        for (const kind of ['first_response', 'next_response'] as const) {
          const cycle = cycles[kind];
          if (cycle?.running) {
            cycle.running = false;
            cycle.met = t;
          }
        }
        cycles.periodic_update = { started: t, elapsed: 0, running: true, met: null, breached: null };
      } else if (e.type === 'customer_message') {
        if (replied && !cycles.next_response?.running)
          cycles.next_response = { started: t, elapsed: 0, running: true, met: null, breached: null };
      } else if (e.type === 'facts_changed') {
        facts = { ...facts, ...e.facts };
        policy = select();
      } else if (e.type === 'policies_changed') {
        policies = e.policies;
        policy = select();
      } else if (e.type === 'calendar_changed') {
        calendars[e.calendar_id] = e.calendar;
        policy = select();
      }
      checkBreaches(t);
    }
    if (t === now) {
      expected = { policy_id: policy?.id ?? null, targets: [] };
      for (const kind of KINDS) {
        const target = policy?.targets[kind];
        const cycle = cycles[kind];
        if (!target || !cycle) continue;
        const state =
          cycle.breached !== null
            ? 'breached'
            : !cycle.running
              ? 'met'
              : notPaused(kind)
                ? 'active'
                : 'paused';
        const remaining = Math.max(0, target.minutes - cycle.elapsed);
        expected.targets.push({
          target: kind,
          state,
          elapsed_minutes: cycle.elapsed,
          remaining_minutes: state === 'breached' ? 0 : remaining,
          started_at: cycle.started,
          due_at: state === 'breached' ? cycle.breached : null,
          met_at: cycle.met,
          breached_at: cycle.breached,
          warning_at: null,
        });
        if (state === 'active') {
          const warn = target.warn_before_minutes;
          pending.set(kind, {
            due: remaining === 0 ? now : null,
            warnAt: null,
            warnLeft: warn !== null && remaining > warn ? remaining - warn : null,
          });
        }
      }
    }
    if (t >= now && allResolved(pending)) break;
    if (t > now + HORIZON_AFTER_NOW) return 'beyond';
    for (const kind of KINDS) {
      if (!counts(kind, t)) continue;
      const cycle = cycles[kind]!;
      const target = policy!.targets[kind]!;
      cycle.elapsed += 1;
      if (cycle.breached === null && cycle.elapsed >= target.minutes) cycle.breached = t + MIN;
      const p = pending.get(kind);
      if (t >= now && p) {
        if (p.due === null && cycle.breached === t + MIN) p.due = t + MIN;
        if (
          p.warnLeft !== null &&
          p.warnAt === null &&
          cycle.elapsed - (target.minutes - (p.warnLeft + (target.warn_before_minutes ?? 0))) >= p.warnLeft
        )
          p.warnAt = t + MIN;
      }
    }
  }
  for (const entry of expected!.targets) {
    const p = pending.get(entry.target);
    if (p) {
      entry.due_at = p.due;
      entry.warning_at = p.warnAt;
    }
  }
  return expected!;
}

function allResolved(
  pending: Map<TargetKind, { due: number | null; warnAt: number | null; warnLeft: number | null }>,
): boolean {
  for (const p of pending.values())
    if (p.due === null || (p.warnLeft !== null && p.warnAt === null)) return false;
  return true;
}

function ok<T>(result: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!result.ok) throw new Error(`generator made an invalid input: ${JSON.stringify(result.errors)}`);
  return result.value;
}

describe('property: computed clocks equal a minute-by-minute oracle', function () {
  this.timeout(600_000);
  const runs = Number(process.env.SLA_PROPERTY_RUNS ?? 10_000);
  const seed = Number(process.env.SLA_PROPERTY_SEED ?? Date.now() % 2 ** 31);

  it(`${runs} random histories (seed ${seed}) across DST in New York and Berlin`, () => {
    const g = new Gen(prng(seed));
    let compared = 0;
    const timing = { oracle: 0, engine: 0 };
    const seen = { breached: 0, met: 0, paused: 0, active: 0, warning: 0, dstCrossed: 0 };
    for (let run = 0; run < runs; run++) {
      const c = genCase(g);
      let clock = performance.now();
      const expected = oracle(c);
      timing.oracle += performance.now() - clock;
      clock = performance.now();
      const result = computeClocks(c);
      timing.engine += performance.now() - clock;
      const context = (): string =>
        `seed ${seed}, run ${run} (SLA_PROPERTY_SEED=${seed}): ${JSON.stringify({ ...c })}`;
      if (!result.ok)
        throw new Error(`computeClocks refused: ${JSON.stringify(result.errors)}; ${context()}`);
      if (expected === 'beyond') continue;
      const actual = {
        policy_id: result.value.policy_id,
        targets: result.value.targets.map((t) => ({
          target: t.target,
          state: t.state,
          elapsed_minutes: t.elapsed_minutes,
          remaining_minutes: t.remaining_minutes,
          started_at: t.started_at.getTime(),
          due_at: t.due_at?.getTime() ?? null,
          met_at: t.met_at?.getTime() ?? null,
          breached_at: t.breached_at?.getTime() ?? null,
          warning_at: t.warning_at?.getTime() ?? null,
        })),
      };
      try {
        expect(actual).to.deep.equal(expected);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${context()}`);
      }
      const activeDues = expected.targets.filter((t) => t.state === 'active').map((t) => t.due_at!);
      const next = activeDues.length ? Math.min(...activeDues) : null;
      expect(result.value.next_breach_at?.getTime() ?? null, context()).to.equal(next);
      const warnings = expected.targets.filter((t) => t.warning_at !== null).map((t) => t.warning_at!);
      expect(result.value.next_warning_at?.getTime() ?? null, context()).to.equal(
        warnings.length ? Math.min(...warnings) : null,
      );
      for (const t of expected.targets) seen[t.state as keyof typeof seen]++;
      seen.warning += warnings.length;
      const first = c.history[0]!.at.getTime();
      if (DST_CHANGES.some((d) => d > first && d < c.now.getTime())) seen.dstCrossed++;
      compared++;
    }
    console.log(
      `      compared ${compared} of ${runs} histories; target states ${JSON.stringify(seen)}; oracle ${Math.round(timing.oracle)} ms over ${walked} minutes, engine ${Math.round(timing.engine)} ms`,
    );
    expect(compared).to.be.greaterThan(runs * 0.99);
    for (const count of Object.values(seen)) expect(count).to.be.greaterThan(runs / 50);
  });
});
