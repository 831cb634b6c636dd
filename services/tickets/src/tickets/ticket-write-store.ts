/**
 * Writing tickets: hand-written, parameterised SQL through `pg` (this service's one way to touch
 * the database, see db.ts). A change and its domain events (outbox_events) are written atomically.
 * - create: ONE statement numbers the ticket, inserts it and its events (their data written from
 *   the numbered row). The project's counter row
 *   (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) makes the number gap-free: its row lock
 *   serialises the creates of a project, and a failed statement gives the number back. Being a
 *   single statement, the lock is held for that statement only, which is what bounds how many
 *   tickets per second one project can take. With an Idempotency-Key, the same statement first
 *   records the key (ticket_idempotency); when the key is already recorded and still in its window,
 *   nothing is written and the store reports the recorded ticket (see `create`).
 * - changes of existing tickets: one transaction with one UPDATE conditional on the version each
 *   change was computed from (and on the deleted state it expects); a row that moved on is simply
 *   not updated, and the caller decides what that means (404, 409, a failed bulk id).
 * - lane positions: appends read the lane's last key (see lanes/lane-placement.ts); two writers that
 *   still pick the same key are refused by the unique index, surfacing as WriteConflict.
 * Multi-row changes lock their rows in id order first, so they cannot deadlock each other.
 */
import type pg from 'pg';
import { inTransaction, outboxInsert, type EventEnvelope, type IdempotencyContext } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import { asWriteConflict, prepared, WriteConflict } from '../db.js';
import { appendRank, appendRanks, type LanePlacement } from '../lanes/lane-placement.js';
import type { SourceType } from '../shared/caller.js';
import { IDEMPOTENCY_WINDOW_SECONDS } from './idempotency-sweep.js';
import { TICKET_COLUMNS } from './ticket-columns.js';
import { PRIORITY_LABELS, ticketJsonSql } from './ticket-mapper.js';
import type { ProjectWorkflow } from '../lookup/workflow.js';
import type { TicketRow, TicketState } from './ticket-row.js';

/** A ticket to create (numbering, lane position and timestamps are the store's). */
export interface NewTicket extends TicketState {
  projectId: number;
  /** The project's ticket-number prefix: ticket_number is `<prefix>-<project_ref_id>`. */
  prefix: string;
  /** The label of `status` in the project's workflow (statusLabel), for the events' data. */
  statusLabel: string;
  /** Whether `status` is a closed status of the workflow (then closed_at is the creation time). */
  statusClosed: boolean;
  ticketTypeId: number;
  createdBy: number;
  sourceType: SourceType;
  /** A system caller's origin (`mail:<inbound id>`), unique per project; null for every other create. */
  sourceRef: string | null;
}

/** A change of one existing ticket, computed from `before`. */
export interface TicketChange {
  /** The row the change was computed from: the update applies only while it is still current. */
  before: TicketRow;
  /** The complete mutable state after the change. */
  next: TicketState;
  placement: LanePlacement;
  /** Deleted after the change (true: soft delete; false while `before` was deleted: restore). */
  deleted: boolean;
  /** Null for a change no user asked for (tickets moved out of a status removed with the CLI). */
  updatedBy: number | null;
}

/** What a create did: made the ticket, or found its Idempotency-Key recorded (nothing written). */
export type CreateOutcome =
  | { kind: 'created'; row: TicketRow }
  | { kind: 'recorded'; ticketId: number; fingerprint: string }
  /** The project already holds a ticket with that sourceRef: nothing was written. */
  | { kind: 'sourced'; ticketId: number };

/** The unique index of (project_id, source_ref). */
const SOURCE_REF_INDEX = 'tickets_project_id_source_ref_key';

const FIND_SOURCED = `SELECT id FROM tickets WHERE project_id = $1 AND source_ref = $2`;

/** The project of a multi-ticket write: its id and which statuses are closed (lookup's is_closed). */
export type ClosedStatuses = Pick<ProjectWorkflow, 'id' | 'statuses'>;

/** The events a change writes, built from the row as it is after the change. */
export type EventsOf<C> = (change: C, after: TicketRow) => DomainEvent<object>[];

export interface TicketWriteStore {
  /**
   * Inserts the ticket at the end of its status lane with the next number of its project, and the
   * events whose envelopes `envelopesOf` builds, with the numbered ticket as their data, atomically. With `idempotency`, its scope is recorded in the
   * same statement; if the scope is already recorded (within IDEMPOTENCY_WINDOW_SECONDS), nothing is
   * written and the recorded ticket id and fingerprint come back instead (a concurrent create of the
   * same scope waits for the first to commit or roll back, so there is never a second ticket).
   */
  create(
    ticket: NewTicket,
    envelopesOf: (created: Pick<TicketRow, 'projectId' | 'updatedAt'>) => EventEnvelope[],
    idempotency?: IdempotencyContext | null,
  ): Promise<CreateOutcome>;
  /**
   * Applies the changes (all of one project) in one transaction and returns the rows that were
   * updated (closed_at follows the status: set when it moves into one of the project's closed
   * statuses, kept between closed statuses, cleared when it moves out), in the order of `changes`; a change whose ticket moved on since `before` is left out.
   * `guards` are other tickets the changes rely on: when one moved on, nothing is written and a
   * WriteConflict('guard_moved') is thrown.
   */
  applyChanges(
    project: ClosedStatuses,
    changes: readonly TicketChange[],
    eventsOf: EventsOf<TicketChange>,
    guards?: readonly { id: number; version: number }[],
  ): Promise<TicketRow[]>;
}

/** The last live key of each lane (an index scan backwards, one row per lane). */
const LANE_TAILS = `
  SELECT l.status, (SELECT t.lane_rank FROM tickets t
                     WHERE t.project_id = $1 AND t.status = l.status AND t.deleted_at IS NULL
                     ORDER BY t.lane_rank DESC LIMIT 1) AS tail
    FROM unnest($2::text[]) AS l(status)`;

/** What a create needs before its one writing statement: an id, the time, the lane's last key. */
const PREPARE_CREATE = `
  SELECT nextval('tickets_id_seq')::int AS id, now()::timestamptz(3) AS now,
         (SELECT t.lane_rank FROM tickets t
           WHERE t.project_id = $1 AND t.status = $2 AND t.deleted_at IS NULL
           ORDER BY t.lane_rank DESC LIMIT 1) AS tail`;

/**
 * Claims an Idempotency-Key scope ($21, fingerprint $22) for ticket $1: a new scope, or one whose
 * record is past the window, yields a row; a live record yields none, and then the statement writes
 * nothing. ON CONFLICT waits for a concurrent claim of the scope to commit or roll back first.
 */
const CLAIM_SCOPE = `claim AS (
    INSERT INTO ticket_idempotency AS r (scope, fingerprint, ticket_id) VALUES ($21, $22, $1)
    ON CONFLICT (scope) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, ticket_id = EXCLUDED.ticket_id, created_at = now()
      WHERE r.created_at <= now() - interval '${IDEMPOTENCY_WINDOW_SECONDS} seconds'
    RETURNING 1
  ), `;

/** The live record of a scope, read after a create found it claimed. */
const RECORDED_SCOPE = `
  SELECT ticket_id AS "ticketId", fingerprint FROM ticket_idempotency
   WHERE scope = $1 AND created_at > now() - interval '${IDEMPOTENCY_WINDOW_SECONDS} seconds'`;

/**
 * Numbers, inserts and records a ticket in one statement (`keyed`: only once CLAIM_SCOPE claimed
 * the key). The counter assigns the number inside the statement, so the events (envelopes $18) get
 * their data from the numbered row: ticketJsonSql, with the prefix ($17) and labels ($19, $20). The
 * requester and cc are the last two parameters (after the key's, when keyed).
 */
const insertTicket = (keyed: boolean) => `
  WITH ${keyed ? CLAIM_SCOPE : ''}counter AS (
    INSERT INTO project_counters AS c (project_id, last_ref_id) ${keyed ? 'SELECT $2, 1 FROM claim' : 'VALUES ($2, 1)'}
    ON CONFLICT (project_id) DO UPDATE SET last_ref_id = c.last_ref_id + 1
    RETURNING c.last_ref_id AS ref
  ), ticket AS (
    INSERT INTO tickets (id, project_id, ticket_type_id, project_ref_id, title, description, status,
                         priority, assigned_to, created_by, custom_fields, source_type, merged_into_id,
                         resolution_type, tags, lane_rank, created_at, updated_at, requester_id, cc,
                         source_ref, closed_at)
    SELECT $1, $2, $3, counter.ref, $4, $5, $6, $7::ticket_priority, $8, $9, $10::jsonb, $11, $12,
           $13::resolution_type, $14::text[], $15, $16, $16, $${keyed ? 23 : 21}::int, $${keyed ? 24 : 22}::int[],
           $${keyed ? 25 : 23}::text, CASE WHEN $${keyed ? 26 : 24}::boolean THEN $16::timestamptz END
      FROM counter
    RETURNING *
  ), events AS (
    INSERT INTO outbox_events (id, event_type, payload)
    SELECT e.id, e.event_type,
           e.envelope || jsonb_build_object('data', ${ticketJsonSql('ticket', { prefix: '$17::text', statusLabel: '$19::text', priorityLabel: '$20::text' })})
      FROM ticket, jsonb_to_recordset($18::jsonb) AS e(id uuid, event_type text, envelope jsonb)
  )
  SELECT ref FROM counter`;
const INSERT_TICKET = insertTicket(false);
const INSERT_KEYED_TICKET = insertTicket(true);

/** A claimed scope whose record vanished before it was read (swept, or past the window): try again. */
const RECORD_READ_ATTEMPTS = 3;

const UPDATE_TICKETS = `
  UPDATE tickets AS t SET
    title = v.title, description = v.description, status = v.status,
    priority = v.priority::ticket_priority, assigned_to = v.assigned_to,
    custom_fields = v.custom_fields, tags = v.tags,
    resolution_type = v.resolution_type::resolution_type, merged_into_id = v.merged_into_id,
    requester_id = v.requester_id, cc = v.cc,
    -- A ticket already closed before closed_at existed (no backfill knew it) closed at its last change.
    closed_at = CASE WHEN v.status = ANY($3::text[])
                     THEN coalesce(t.closed_at, CASE WHEN t.status = ANY($3::text[]) THEN t.updated_at ELSE now() END)
                END,
    lane_rank = coalesce(v.lane_rank, t.lane_rank),
    deleted_at = CASE WHEN v.deleted THEN coalesce(t.deleted_at, now()) ELSE NULL END,
    updated_by = v.updated_by, updated_at = now(), version = t.version + 1
  FROM jsonb_to_recordset($2::jsonb) AS v(
    id int, expected_version int, was_deleted boolean, deleted boolean, title text, description text,
    status text, priority text, assigned_to int, custom_fields jsonb, tags text[], resolution_type text,
    merged_into_id int, lane_rank text, updated_by int, requester_id int, cc int[])
  WHERE t.id = v.id AND t.project_id = $1 AND t.version = v.expected_version
    AND (t.deleted_at IS NOT NULL) = v.was_deleted
  RETURNING ${TICKET_COLUMNS}`;

/** The new lane_rank of each change (null: unchanged); changes appending to one lane queue up in order. */
async function assignRanks(
  client: pg.PoolClient,
  projectId: number,
  changes: readonly TicketChange[],
): Promise<(string | null)[]> {
  const appending = changes.filter((change) => change.placement.kind === 'end');
  const lanes = [...new Set(appending.map((change) => change.next.status))];
  const queued = new Map<string, string[]>();
  if (lanes.length > 0) {
    const { rows } = await client.query<{ status: string; tail: string | null }>(LANE_TAILS, [
      projectId,
      lanes,
    ]);
    for (const { status, tail } of rows) {
      const count = appending.filter((change) => change.next.status === status).length;
      queued.set(status, appendRanks(tail, count));
    }
  }
  return changes.map((change) => {
    if (change.placement.kind === 'keep') return null;
    if (change.placement.kind === 'at') return change.placement.rank;
    return queued.get(change.next.status)!.shift()!;
  });
}

/** Locks the rows in id order (no deadlock between multi-row writes) and checks the guards' versions. */
async function lockRows(
  client: pg.PoolClient,
  ids: readonly number[],
  guards: readonly { id: number; version: number }[],
): Promise<void> {
  const { rows } = await client.query<{ id: number; version: number }>(
    'SELECT id, version FROM tickets WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE',
    [ids],
  );
  const versions = new Map(rows.map((row) => [row.id, row.version]));
  if (guards.some((guard) => versions.get(guard.id) !== guard.version))
    throw new WriteConflict('guard_moved');
}

/** The pg-backed write store. */
export function createTicketWriteStore(pool: pg.Pool): TicketWriteStore {
  return {
    async create(ticket, envelopesOf, idempotency = null) {
      const sourced = async (): Promise<CreateOutcome | null> => {
        if (ticket.sourceRef === null) return null;
        const { rows } = await pool.query<{ id: number }>(
          prepared(FIND_SOURCED, [ticket.projectId, ticket.sourceRef]),
        );
        return rows[0] ? { kind: 'sourced', ticketId: rows[0].id } : null;
      };
      const earlier = await sourced();
      if (earlier) return earlier;
      try {
        for (let attempt = 1; ; attempt++) {
          const { rows: reserved } = await pool.query<{ id: number; now: Date; tail: string | null }>(
            prepared(PREPARE_CREATE, [ticket.projectId, ticket.status]),
          );
          const { id, now, tail } = reserved[0]!;
          const row: TicketRow = {
            id,
            projectId: ticket.projectId,
            ticketTypeId: ticket.ticketTypeId,
            projectRefId: 0, // assigned by the counter, below
            title: ticket.title,
            description: ticket.description,
            status: ticket.status,
            priority: ticket.priority,
            assignedTo: ticket.assignedTo,
            createdBy: ticket.createdBy,
            updatedBy: null,
            customFields: ticket.customFields,
            sourceType: ticket.sourceType,
            mergedIntoId: ticket.mergedIntoId,
            resolutionType: ticket.resolutionType,
            tags: ticket.tags,
            requesterId: ticket.requesterId,
            cc: ticket.cc,
            version: 1,
            laneRank: appendRank(tail),
            createdAt: now,
            updatedAt: now,
            deletedAt: null,
            closedAt: ticket.statusClosed ? now : null,
          };
          const envelopes = envelopesOf(row).map((envelope) => ({
            id: envelope.id,
            event_type: envelope.type,
            envelope,
          }));
          const values = [
            row.id,
            row.projectId,
            row.ticketTypeId,
            row.title,
            row.description,
            row.status,
            row.priority,
            row.assignedTo,
            row.createdBy,
            JSON.stringify(row.customFields),
            row.sourceType,
            row.mergedIntoId,
            row.resolutionType,
            row.tags,
            row.laneRank,
            row.createdAt,
            ticket.prefix,
            JSON.stringify(envelopes),
            ticket.statusLabel,
            PRIORITY_LABELS[row.priority],
          ];
          // The customer fields come last: $21/$22, or $23/$24 after a key's scope and fingerprint;
          // then the source ref and whether the status is closed.
          const customers = [row.requesterId, row.cc, ticket.sourceRef, ticket.statusClosed];
          const { rows: numbered } = await pool.query<{ ref: number }>(
            idempotency
              ? prepared(INSERT_KEYED_TICKET, [
                  ...values,
                  idempotency.scope,
                  idempotency.fingerprint,
                  ...customers,
                ])
              : prepared(INSERT_TICKET, [...values, ...customers]),
          );
          if (numbered[0]) return { kind: 'created', row: { ...row, projectRefId: numbered[0].ref } };
          if (!idempotency) throw new Error('the create statement numbered no ticket');
          const { rows: recorded } = await pool.query<{ ticketId: number; fingerprint: string }>(
            prepared(RECORDED_SCOPE, [idempotency.scope]),
          );
          if (recorded[0]) return { kind: 'recorded', ...recorded[0] };
          if (attempt >= RECORD_READ_ATTEMPTS) throw new Error('idempotency record vanished on every read');
        }
      } catch (error) {
        // A concurrent create with the same sourceRef committed first: answer its ticket.
        const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
        if (code === '23505' && constraint === SOURCE_REF_INDEX) {
          const winner = await sourced();
          if (winner) return winner;
        }
        throw asWriteConflict(error) ?? error;
      }
    },

    applyChanges(project, changes, eventsOf, guards = []) {
      const projectId = project.id;
      const closed = project.statuses.filter((status) => status.isClosed).map((status) => status.slug);
      if (changes.length === 0) return Promise.resolve([]);
      return inTransaction(pool, async (client) => {
        if (changes.length > 1 || guards.length > 0) {
          await lockRows(client, [...changes.map((c) => c.before.id), ...guards.map((g) => g.id)], guards);
        }
        const ranks = await assignRanks(client, projectId, changes);
        const records = changes.map((change, index) => ({
          id: change.before.id,
          expected_version: change.before.version,
          was_deleted: change.before.deletedAt !== null,
          deleted: change.deleted,
          title: change.next.title,
          description: change.next.description,
          status: change.next.status,
          priority: change.next.priority,
          assigned_to: change.next.assignedTo,
          custom_fields: change.next.customFields,
          tags: change.next.tags,
          resolution_type: change.next.resolutionType,
          merged_into_id: change.next.mergedIntoId,
          lane_rank: ranks[index],
          updated_by: change.updatedBy,
          requester_id: change.next.requesterId,
          cc: change.next.cc,
        }));
        const { rows } = await client.query<TicketRow>(UPDATE_TICKETS, [
          projectId,
          JSON.stringify(records),
          closed,
        ]);
        const updated = new Map(rows.map((row) => [row.id, row]));
        const results: TicketRow[] = [];
        const events: DomainEvent<object>[] = [];
        for (const change of changes) {
          const after = updated.get(change.before.id);
          if (!after) continue;
          results.push(after);
          events.push(...eventsOf(change, after));
        }
        if (events.length > 0) await client.query(outboxInsert(events));
        return results;
      }).catch((error: unknown) => {
        // Races the caller may retry from the start (shared/write-retry.ts).
        throw asWriteConflict(error) ?? error;
      });
    },
  };
}
