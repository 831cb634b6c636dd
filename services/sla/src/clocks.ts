/**
 * Each ticket's SLA clocks, kept from the ticket and comment events and fired by durable timers
 * (docs/sla.md, "The service"). Every change to a ticket's row happens with the row locked, in one
 * transaction with what follows from it: the recomputed clocks, the sla.* events of the outbox and
 * the timers of the next warnings and breaches.
 */
import type pg from 'pg';
import {
  type Calendar,
  type Clocks,
  computeClocks,
  type Policy,
  TARGET_KINDS,
  type TargetClock,
  type TargetKind,
} from '@tix/business-time';
import {
  AppError,
  cancelTimer,
  isTransientDatabaseError,
  type Logger,
  newDomainEvent,
  outboxInsert,
  scheduleTimer,
} from '@tix/kit';
import type { DomainEvent, EventType } from '@tix/protos';
import { projectDefinitions } from './definitions.js';
import {
  changedFacts,
  commentFact,
  commentOf,
  engineHistory,
  factsOf,
  insertInOrder,
  type StoredEvent,
  type TicketSnapshot,
  ticketOf,
} from './ticket-events.js';

/**
 * Failures worth retrying the message for: the database's passing ones and lookup unreachable or
 * slow; anything else (a bug, a refused query) dead-letters it (docs/events.md).
 */
export function isTransientClockError(error: unknown): boolean {
  if (error instanceof AppError) return ['unavailable', 'timeout', 'internal'].includes(error.kind);
  return isTransientDatabaseError(error);
}

/** Which statuses of a project are closed (lookup's workflow). */
export interface ClosedStatuses {
  of(projectId: number): Promise<ReadonlySet<string>>;
}

export interface ClockDeps {
  pool: pg.Pool;
  closedStatuses: ClosedStatuses;
  logger: Logger;
  /** The current instant (tests may move it). */
  now?: () => Date;
}

interface ClockRow {
  ticket_id: number;
  project_id: number;
  last_version: number;
  snapshot: TicketSnapshot | null;
  history: StoredEvent[];
  initial_policies: Policy[];
  initial_calendars: Record<string, Calendar>;
  known_policies: Policy[];
  known_calendars: Record<string, Calendar>;
  announced: string[];
  clocks: Clocks | null;
}

export interface TimerPayload {
  ticket_id: number;
  target: TargetKind;
  kind: 'breach' | 'warning';
}

async function lockRow(tx: pg.ClientBase, ticketId: number, projectId: number): Promise<ClockRow> {
  await tx.query(
    'INSERT INTO ticket_clocks (ticket_id, project_id) VALUES ($1, $2) ON CONFLICT (ticket_id) DO NOTHING',
    [ticketId, projectId],
  );
  const { rows } = await tx.query<ClockRow>('SELECT * FROM ticket_clocks WHERE ticket_id = $1 FOR UPDATE', [
    ticketId,
  ]);
  return rows[0]!;
}

/**
 * Applies one ticket or comment event to its ticket's SLA, once: a ticket event whose version is not
 * above the last applied one (a redelivery, another event of the same write, an older write arriving
 * late) changes nothing; a comment is applied once by its id. Answers whether it changed anything.
 */
export async function applyEvent(deps: ClockDeps, tx: pg.ClientBase, event: DomainEvent): Promise<boolean> {
  if (event.project_id === undefined) return false;
  const projectId = event.project_id;
  if (event.type === 'comment.created') {
    const comment = commentOf(event);
    if (!comment) return false;
    const fact = commentFact(comment);
    if (!fact) return false;
    const row = await lockRow(tx, comment.ticket_id, projectId);
    if (row.history.some((entry) => entry.ref === fact.ref)) return false;
    await followDefinitions(tx, row, Date.parse(fact.at));
    row.history = insertInOrder(row.history, fact);
    await settle(deps, tx, row);
    return true;
  }
  if (!event.type.startsWith('ticket.')) return false;
  const ticket = ticketOf(event);
  if (!ticket) return false;
  // The closed statuses are asked before the row is locked (a lookup call inside the lock would hold it).
  const closed = (await deps.closedStatuses.of(projectId)).has(ticket.status);
  const row = await lockRow(tx, ticket.id, projectId);
  if (ticket.version <= row.last_version) return false;
  const at = new Date(event.occurred_at).toISOString();
  const writeTypes = event.write_types ?? [event.type];
  const deleted = writeTypes.includes('ticket.deleted');
  const snapshot: TicketSnapshot = { status: ticket.status, closed, deleted, facts: factsOf(ticket) };
  await followDefinitions(tx, row, Date.parse(at));
  const ref = `ticket:${ticket.version}`;
  if (row.snapshot === null) {
    // The first ticket event seen: the creation (from the ticket's own created_at). When the
    // creation itself was missed, the status it started in is the one this write changed from.
    const changedStatus = event.changes?.status;
    const initialStatus =
      ticket.version === 1 || typeof changedStatus?.from !== 'string' ? ticket.status : changedStatus.from;
    const initialClosed =
      initialStatus === ticket.status ? closed : (await deps.closedStatuses.of(projectId)).has(initialStatus);
    row.history = insertInOrder(row.history, {
      ref: 'ticket:created',
      type: 'created',
      at: new Date(ticket.created_at).toISOString(),
      facts: snapshot.facts,
      status: initialStatus,
      closed: initialClosed,
    });
    if (initialStatus !== ticket.status)
      row.history = insertInOrder(row.history, {
        ref,
        type: 'status_changed',
        at,
        to: ticket.status,
        closed,
      });
  } else {
    const facts = changedFacts(row.snapshot.facts, snapshot.facts);
    if (facts) row.history = insertInOrder(row.history, { ref, type: 'facts_changed', at, facts });
    if (row.snapshot.status !== ticket.status || row.snapshot.closed !== closed)
      row.history = insertInOrder(row.history, {
        ref,
        type: 'status_changed',
        at,
        to: ticket.status,
        closed,
      });
  }
  row.snapshot = snapshot;
  row.last_version = ticket.version;
  await settle(deps, tx, row);
  return true;
}

/**
 * Policy and calendar edits reach a ticket at its next event or timer: when the project's
 * definitions differ from the ones the ticket last saw, the change enters its history at that
 * instant (never before its last entry), so the time before counts under the old ones.
 */
async function followDefinitions(tx: pg.ClientBase, row: ClockRow, atMs: number): Promise<void> {
  const current = await projectDefinitions(tx, row.project_id);
  const hasHistory = row.history.some((entry) => entry.type === 'created');
  if (!hasHistory) {
    row.initial_policies = current.policies;
    row.initial_calendars = current.calendars;
    row.known_policies = current.policies;
    row.known_calendars = current.calendars;
    return;
  }
  const last = Math.max(...row.history.map((entry) => Date.parse(entry.at)));
  const at = new Date(Math.max(atMs, last)).toISOString();
  for (const id of new Set([...Object.keys(row.known_calendars), ...Object.keys(current.calendars)])) {
    const before = row.known_calendars[id] ?? null;
    const after = current.calendars[id] ?? null;
    if (JSON.stringify(before) !== JSON.stringify(after))
      row.history.push({
        ref: 'definitions',
        type: 'calendar_changed',
        at,
        calendar_id: id,
        calendar: after,
      });
  }
  if (JSON.stringify(row.known_policies) !== JSON.stringify(current.policies))
    row.history.push({ ref: 'definitions', type: 'policies_changed', at, policies: current.policies });
  row.known_policies = current.policies;
  row.known_calendars = current.calendars;
}

/** The clocks of a row at `now` (null: creation not seen, deleted, or no answer). */
export function clocksAt(
  row: Pick<ClockRow, 'history' | 'snapshot' | 'initial_policies' | 'initial_calendars'>,
  now: Date,
) {
  if (row.snapshot?.deleted) return null;
  const history = engineHistory(row.history);
  if (!history) return null;
  const last = Math.max(...history.map((event) => event.at.getTime()));
  const result = computeClocks({
    policies: row.initial_policies,
    calendars: row.initial_calendars,
    history,
    now: new Date(Math.max(now.getTime(), last)),
  });
  return result.ok ? result.value : null;
}

/** What a target's sla.* event says. */
function eventData(row: ClockRow, clocks: Clocks, target: TargetClock, extra: Record<string, unknown>) {
  return {
    ticket_id: row.ticket_id,
    project_id: row.project_id,
    policy_id: clocks.policy_id,
    target: target.target,
    mode: target.mode,
    target_minutes: target.target_minutes,
    started_at: target.started_at.toISOString(),
    due_at: target.due_at?.toISOString() ?? target.breached_at?.toISOString() ?? null,
    ...extra,
  };
}

/**
 * Recomputes the row's clocks, writes the sla.breached and sla.fulfilled events not written yet,
 * the warnings `warn` asks for, and moves the timers to the new instants; then stores the row.
 * `firing` is the timer being fired (its key is deleted by the worker, so it is left alone here).
 */
async function settle(
  deps: ClockDeps,
  tx: pg.ClientBase,
  row: ClockRow,
  options: { at?: Date; warn?: TargetKind; firing?: string } = {},
): Promise<void> {
  const nowMs = Math.max((deps.now ?? (() => new Date()))().getTime(), options.at?.getTime() ?? 0);
  const now = new Date(nowMs);
  const previous = row.clocks;
  const clocks = clocksAt(row, now);
  const events: DomainEvent<object>[] = [];
  const announce = (key: string, type: EventType, data: object) => {
    if (row.announced.includes(key)) return;
    row.announced.push(key);
    events.push(
      newDomainEvent(type, data, {
        source: 'sla',
        projectId: row.project_id,
        occurredAt: now,
        actor: { kind: 'system', user_id: null, api_key_id: null },
      }),
    );
  };
  for (const target of clocks?.targets ?? []) {
    const cycle = `${target.target}:${target.started_at.toISOString()}`;
    if (target.breached_at && target.breached_at.getTime() <= nowMs)
      announce(
        `breached:${cycle}`,
        'sla.breached',
        eventData(row, clocks!, target, { breached_at: target.breached_at.toISOString() }),
      );
    else if (target.state === 'met' && target.met_at)
      announce(
        `fulfilled:${cycle}:${target.met_at.toISOString()}`,
        'sla.fulfilled',
        eventData(row, clocks!, target, {
          met_at: target.met_at.toISOString(),
          elapsed_minutes: target.elapsed_minutes,
        }),
      );
    if (options.warn === target.target && target.state === 'active')
      announce(
        `warning:${cycle}`,
        'sla.warning',
        eventData(row, clocks!, target, { remaining_minutes: target.remaining_minutes }),
      );
  }
  if (events.length > 0) {
    const insert = outboxInsert(events);
    await tx.query(insert.text, insert.values);
  }
  await moveTimers(tx, row.ticket_id, previous, clocks, options.firing);
  row.clocks = clocks;
  await tx.query(
    `UPDATE ticket_clocks SET last_version = $2, snapshot = $3, history = $4, initial_policies = $5,
            initial_calendars = $6, known_policies = $7, known_calendars = $8, announced = $9, clocks = $10,
            next_breach_at = $11, next_warning_at = $12, updated_at = now()
      WHERE ticket_id = $1`,
    [
      row.ticket_id,
      row.last_version,
      JSON.stringify(row.snapshot),
      JSON.stringify(row.history),
      JSON.stringify(row.initial_policies),
      JSON.stringify(row.initial_calendars),
      JSON.stringify(row.known_policies),
      JSON.stringify(row.known_calendars),
      JSON.stringify(row.announced),
      JSON.stringify(clocks),
      clocks?.next_breach_at ?? null,
      clocks?.next_warning_at ?? null,
    ],
  );
}

/** A timer's key: the target's breach or warning at one instant (moving it is a new key). */
export const timerKey = (kind: 'breach' | 'warning', ticketId: number, target: TargetKind, dueAt: Date) =>
  `sla:${kind}:${ticketId}:${target}:${dueAt.getTime()}`;

/** The timers clocks call for, by kind and target: the breach (due_at) and warning (warning_at) of active targets. */
function wantedTimers(ticketId: number, clocks: Clocks | null | undefined) {
  const wanted = new Map<string, { key: string; dueAt: Date; payload: TimerPayload }>();
  for (const target of clocks?.targets ?? []) {
    if (target.state !== 'active') continue;
    for (const [kind, instant] of [
      ['breach', target.due_at],
      ['warning', target.warning_at],
    ] as const) {
      if (!instant) continue;
      // Stored clocks come back from JSON with their instants as text.
      const dueAt = new Date(instant);
      wanted.set(`${kind}:${target.target}`, {
        key: timerKey(kind, ticketId, target.target, dueAt),
        dueAt,
        payload: { ticket_id: ticketId, target: target.target, kind },
      });
    }
  }
  return wanted;
}

async function moveTimers(
  tx: pg.ClientBase,
  ticketId: number,
  previous: Clocks | null,
  next: Clocks | null,
  firing: string | undefined,
): Promise<void> {
  const before = wantedTimers(ticketId, previous);
  const after = wantedTimers(ticketId, next);
  for (const slot of new Set([...before.keys(), ...after.keys()])) {
    const had = before.get(slot);
    const want = after.get(slot);
    if (had?.key === want?.key) continue;
    // The timer being fired is deleted by the worker in this transaction.
    if (had && had.key !== firing) await cancelTimer(tx, had.key);
    if (want && want.key !== firing) await scheduleTimer(tx, want);
  }
}

/** The timer handler: recomputes the ticket at the timer's instant and writes what is due. */
export async function fireTimer(
  deps: ClockDeps,
  tx: pg.ClientBase,
  key: string,
  dueAt: Date,
  payload: unknown,
) {
  const timer = payload as Partial<TimerPayload> | null;
  if (!timer || !Number.isInteger(timer.ticket_id) || !TARGET_KINDS.includes(timer.target as TargetKind)) {
    deps.logger.warn({ key }, 'sla timer without a ticket and target: dropped');
    return;
  }
  const { rows } = await tx.query<ClockRow>('SELECT * FROM ticket_clocks WHERE ticket_id = $1 FOR UPDATE', [
    timer.ticket_id,
  ]);
  if (!rows[0]) return;
  const row = rows[0];
  await followDefinitions(tx, row, dueAt.getTime());
  await settle(deps, tx, row, {
    at: dueAt,
    warn: timer.kind === 'warning' ? timer.target : undefined,
    firing: key,
  });
}

/** Each known ticket's clocks now (GetTicketSla). */
export async function ticketSla(pool: pg.Pool, ticketIds: readonly number[], now: Date) {
  const { rows } = await pool.query<ClockRow>(
    'SELECT * FROM ticket_clocks WHERE ticket_id = ANY($1::int[]) ORDER BY ticket_id',
    [[...ticketIds]],
  );
  return rows.map((row) => ({
    ticket_id: row.ticket_id,
    project_id: row.project_id,
    sla: clocksAt(row, now),
  }));
}
