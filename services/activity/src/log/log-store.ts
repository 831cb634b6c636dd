/**
 * Writes what an event adds to the logs (fold.ts) in one statement, under the log lock:
 * `pg_advisory_xact_lock(LOG_LOCK)` serialises every writer of every replica, and the numbers
 * (events.sequence, activities.id) are drawn while it is held and released only at commit, so rows
 * become visible in number order. A reader that has seen number N can therefore never later find a
 * new row below N: a cursor never skips anything (docs/decisions.md, "Activity").
 *
 * One statement (data-modifying CTEs, committed on its own) rather than a transaction of four: the
 * lock is held for one round trip instead of five, which is what bounds how many events a second
 * the log takes. Each insert reads the row of the one before (`FROM lock`, `FROM streamed`), so the
 * lock is taken before any number is drawn.
 *
 * Idempotent by event id: a redelivered event finds its stream row and the statement adds nothing;
 * an event the stream leaves out (ai.*) finds its entry by fold key instead.
 */
import type pg from 'pg';
import type { EntryDraft } from './entry-draft.js';
import type { LogRecord } from './fold.js';
import type { LogPosition } from './poll.js';

/** The advisory lock key of the logs (any constant the database does not use for another lock). */
export const LOG_LOCK = 7_404_001;

/** What recording an event did. */
export type RecordOutcome = 'recorded' | 'folded' | 'duplicate' | 'ignored';

export interface LogStore {
  record(record: LogRecord): Promise<RecordOutcome>;
}

/** An entry's columns, in the order entryValues gives them. */
const ENTRY_COLUMNS = `fold_key, event_id, type, occurred_at, project_id, actor_kind, actor_user_id,
  actor_api_key_id, via_type, via_id, ticket_id, changes, changed_fields, comment_id, comment_internal,
  comment_excerpt, filename, details`;

function entryValues(entry: EntryDraft): unknown[] {
  const { actor } = entry;
  return [
    entry.foldKey,
    entry.eventId,
    entry.type,
    entry.occurredAt,
    entry.projectId,
    actor.kind,
    actor.user_id,
    actor.api_key_id,
    actor.via?.type ?? null,
    actor.via?.id ?? null,
    entry.ticketId,
    JSON.stringify(entry.changes),
    Object.keys(entry.changes),
    entry.comment?.id ?? null,
    entry.comment?.isInternal ?? null,
    entry.comment?.excerpt ?? null,
    entry.filename,
    entry.details === null ? null : JSON.stringify(entry.details),
  ];
}

/** `$from, $from+1, ...`: `count` placeholders. */
const placeholders = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => `$${from + index}`).join(', ');

const ENTRY_VALUE_COUNT = 18;

/** A streamed event, its entry (unless its write already has one) and its ticket's subject. */
const RECORD = `
  WITH lock AS (SELECT pg_advisory_xact_lock($1) AS held),
  streamed AS (
    INSERT INTO events (event_id, type, project_id, occurred_at, body)
    SELECT $2, $3, $4, $5, $6 FROM lock
    ON CONFLICT (event_id) DO NOTHING
    RETURNING 1),
  subject AS (
    -- The newest version's title wins, whatever order the events arrive in.
    INSERT INTO ticket_subjects (id, project_id, ticket_number, title, version)
    SELECT $7, $8, $9, $10, $11 FROM streamed WHERE $7::int IS NOT NULL
    ON CONFLICT (id) DO UPDATE
      SET project_id = EXCLUDED.project_id, ticket_number = EXCLUDED.ticket_number,
          title = EXCLUDED.title, version = EXCLUDED.version
      WHERE ticket_subjects.version < EXCLUDED.version
    RETURNING 1),
  entry AS (
    INSERT INTO activities (${ENTRY_COLUMNS})
    SELECT ${placeholders(12, ENTRY_VALUE_COUNT)} FROM streamed
    ON CONFLICT (fold_key) DO NOTHING
    RETURNING 1)
  SELECT (SELECT count(*) FROM streamed)::int AS streamed, (SELECT count(*) FROM entry)::int AS entered,
         (SELECT count(*) FROM subject)::int AS subjects`;

/**
 * An entry of an event the stream does not serve (ai.*): its fold key, `event:<id>`, is what makes
 * a redelivery add nothing.
 */
const RECORD_ENTRY = `
  WITH lock AS (SELECT pg_advisory_xact_lock($1) AS held),
  entry AS (
    INSERT INTO activities (${ENTRY_COLUMNS})
    SELECT ${placeholders(2, ENTRY_VALUE_COUNT)} FROM lock
    ON CONFLICT (fold_key) DO NOTHING
    RETURNING 1)
  SELECT (SELECT count(*) FROM entry)::int AS entered`;

export function createLogStore(pool: pg.Pool): LogStore {
  return {
    async record({ stream, entry, subject }) {
      if (stream === null) {
        if (entry === null) return 'ignored';
        const { rows } = await pool.query<{ entered: number }>(RECORD_ENTRY, [
          LOG_LOCK,
          ...entryValues(entry),
        ]);
        return rows[0]?.entered ? 'recorded' : 'duplicate';
      }
      const { rows } = await pool.query<{ streamed: number; entered: number }>(RECORD, [
        LOG_LOCK,
        stream.eventId,
        stream.type,
        stream.projectId,
        stream.occurredAt,
        stream.body,
        subject?.id ?? null,
        subject?.projectId ?? null,
        subject?.ticketNumber ?? null,
        subject?.title ?? null,
        subject?.version ?? null,
        ...entryValues(entry),
      ]);
      const outcome = rows[0];
      if (!outcome?.streamed) return 'duplicate';
      return outcome.entered ? 'recorded' : 'folded';
    },
  };
}

/** The two numbered logs: the activity entries and the event stream. */
export type LogName = 'activities' | 'events';

const HEAD_OF: Record<LogName, string> = {
  activities: 'SELECT coalesce(max(id), 0) FROM activities',
  events: 'SELECT coalesce(max(sequence), 0) FROM events',
};

/** A log's head and retention floor, read in one statement. */
export async function logPosition(pool: pg.Pool, log: LogName): Promise<LogPosition> {
  const { rows } = await pool.query<{ head: string; floor: string }>(
    `SELECT (${HEAD_OF[log]}) AS head,
            (SELECT coalesce(max(floor), 0) FROM retention_floors WHERE log = $1) AS floor`,
    [log],
  );
  return { head: Number(rows[0]?.head ?? 0), floor: Number(rows[0]?.floor ?? 0) };
}
