/**
 * Reading and writing comments: hand-written, parameterised SQL through `pg` (the fleet's one way to
 * touch the database at run time). A change and its domain events are written atomically:
 * - create: the id and the time are drawn first, so the event (built from exactly the row that is
 *   inserted) and the row go in with ONE statement;
 * - update and a guarded delete: one short transaction that locks the row (SELECT ... FOR UPDATE),
 *   lets the caller decide on the row as it is now, writes it and its events; a plain delete is one
 *   DELETE ... RETURNING and its events in one transaction. A comment deleted meanwhile comes back
 *   as null.
 * Every query is scoped by project_id: a comment id of another project is simply not found.
 */
import type pg from 'pg';
import { inTransaction, outboxInsert } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import type { CommentFields, CommentRow } from './comment-row.js';

const COLUMNS = `id, project_id, ticket_id, user_id, content, content_html, is_internal, author_type,
  customer_id, source_ref, created_at, updated_at`;

interface DbComment {
  id: number;
  project_id: number;
  ticket_id: number;
  user_id: number;
  content: string;
  content_html: string | null;
  is_internal: boolean;
  author_type: string;
  customer_id: number | null;
  source_ref: string | null;
  created_at: Date;
  updated_at: Date;
}

function toRow(row: DbComment): CommentRow {
  return {
    id: row.id,
    projectId: row.project_id,
    ticketId: row.ticket_id,
    userId: row.user_id,
    content: row.content,
    contentHtml: row.content_html,
    isInternal: row.is_internal,
    authorType: row.author_type === 'customer' ? 'customer' : 'staff',
    customerId: row.customer_id,
    sourceRef: row.source_ref,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A comment to create (id and timestamps are the store's). */
export interface NewComment extends CommentFields {
  projectId: number;
  ticketId: number;
  userId: number;
  authorType: CommentRow['authorType'];
  customerId: number | null;
  sourceRef: string | null;
}

/** The events a write records, built from the row as it is after the write. */
export type EventsOf = (row: CommentRow) => DomainEvent<object>[];

/** The events of an update, built from the row after and before it (for the events' changes). */
export type UpdateEventsOf = (row: CommentRow, before: CommentRow) => DomainEvent<object>[];

export interface CommentStore {
  /** The comment of that project, or null. */
  find(projectId: number, id: number): Promise<CommentRow | null>;
  /** The first `limit` comments of the ticket, oldest first (created_at, then id); public ones only unless `includeInternal`. */
  listForTicket(
    projectId: number,
    ticketId: number,
    options: { includeInternal: boolean; limit: number; after?: CommentPosition },
  ): Promise<CommentRow[]>;
  /**
   * Inserts the comment and the events `eventsOf` builds from it, atomically. With a sourceRef that
   * the project already holds, nothing is written and the existing comment comes back (`existing`).
   */
  insert(comment: NewComment, eventsOf: EventsOf): Promise<CommentRow & { existing?: true }>;
  /**
   * Locks the comment, asks `decide` for its next fields (null: nothing changes, nothing is written;
   * a throw rolls back), writes them with a new updated_at and the events, and returns the row.
   * Null when the comment no longer exists.
   */
  update(
    projectId: number,
    id: number,
    decide: (current: CommentRow) => CommentFields | null,
    eventsOf: UpdateEventsOf,
  ): Promise<CommentRow | null>;
  /**
   * Deletes the comment and records the events built from it as it was; null when it no longer
   * exists. `check`, when given, sees the row locked as it is now, before anything is written: a
   * throw refuses the delete (rolled back, nothing written).
   */
  delete(
    projectId: number,
    id: number,
    eventsOf: (row: CommentRow, deletedAt: Date) => DomainEvent<object>[],
    check?: (current: CommentRow) => void,
  ): Promise<CommentRow | null>;
}

/** Where a comment stands in a ticket's chronological order. */
export interface CommentPosition {
  createdAt: Date;
  id: number;
}

const FIND = `SELECT ${COLUMNS} FROM comments WHERE project_id = $1 AND id = $2`;

const FIND_BY_SOURCE = `SELECT ${COLUMNS} FROM comments WHERE project_id = $1 AND source_ref = $2`;

// Keyset paging on (created_at, id): each batch starts right after the previous one's last comment.
const LIST = `
  SELECT ${COLUMNS} FROM comments
   WHERE project_id = $1 AND ticket_id = $2 AND ($3::boolean OR NOT is_internal)
     AND ($5::timestamptz IS NULL OR (created_at, id) > ($5::timestamptz, $6::int))
   ORDER BY created_at, id
   LIMIT $4`;

const DRAW_ID_AND_TIME = `SELECT nextval('comments_id_seq')::int AS id, now()::timestamptz(3) AS now`;

/** The comment and its events in one statement (the CTE's insert always runs; the join only orders them). */
const INSERT = `
  WITH comment AS (
    INSERT INTO comments (id, project_id, ticket_id, user_id, content, content_html, is_internal,
                          author_type, customer_id, source_ref, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $10, $11, $12, $8, $8)
    ON CONFLICT (project_id, source_ref) DO NOTHING
    RETURNING id
  )
  INSERT INTO outbox_events (id, event_type, payload)
  SELECT e.id, e.event_type, e.payload
    FROM comment, jsonb_to_recordset($9::jsonb) AS e(id uuid, event_type text, payload jsonb)`;

const LOCK = `${FIND} FOR UPDATE`;

const UPDATE = `
  UPDATE comments SET content = $3, content_html = $4, is_internal = $5,
                      updated_at = greatest(now()::timestamptz(3), updated_at)
   WHERE project_id = $1 AND id = $2
  RETURNING ${COLUMNS}`;

const DELETE = `
  DELETE FROM comments WHERE project_id = $1 AND id = $2
  RETURNING ${COLUMNS}, now()::timestamptz(3) AS deleted_at`;

function eventRecords(events: readonly DomainEvent<object>[]): string {
  return JSON.stringify(events.map((event) => ({ id: event.id, event_type: event.type, payload: event })));
}

/** The store over `pool`. */
export function createCommentStore(pool: pg.Pool): CommentStore {
  return {
    async find(projectId, id) {
      const { rows } = await pool.query<DbComment>(FIND, [projectId, id]);
      return rows[0] ? toRow(rows[0]) : null;
    },

    async listForTicket(projectId, ticketId, options) {
      const { rows } = await pool.query<DbComment>(LIST, [
        projectId,
        ticketId,
        options.includeInternal,
        options.limit,
        options.after?.createdAt ?? null,
        options.after?.id ?? null,
      ]);
      return rows.map(toRow);
    },

    async insert(comment, eventsOf) {
      const repeated = async () => {
        if (comment.sourceRef === null) return null;
        const found = await pool.query<DbComment>(FIND_BY_SOURCE, [comment.projectId, comment.sourceRef]);
        return found.rows[0] ? { ...toRow(found.rows[0]), existing: true as const } : null;
      };
      const before = await repeated();
      if (before) return before;
      const { rows } = await pool.query<{ id: number; now: Date }>(DRAW_ID_AND_TIME);
      const drawn = rows[0]!;
      const row: CommentRow = { ...comment, id: drawn.id, createdAt: drawn.now, updatedAt: drawn.now };
      await pool.query(INSERT, [
        row.id,
        row.projectId,
        row.ticketId,
        row.userId,
        row.content,
        row.contentHtml,
        row.isInternal,
        row.createdAt,
        eventRecords(eventsOf(row)),
        row.authorType,
        row.customerId,
        row.sourceRef,
      ]);
      // A concurrent create with the same sourceRef won: the conflict inserted neither row nor event.
      if (comment.sourceRef !== null) {
        const after = await repeated();
        if (after && after.id !== row.id) return after;
      }
      return row;
    },

    update(projectId, id, decide, eventsOf) {
      return inTransaction(pool, async (client) => {
        const locked = await client.query<DbComment>(LOCK, [projectId, id]);
        if (!locked.rows[0]) return null;
        const current = toRow(locked.rows[0]);
        const next = decide(current);
        if (next === null) return current;
        const updated = await client.query<DbComment>(UPDATE, [
          projectId,
          id,
          next.content,
          next.contentHtml,
          next.isInternal,
        ]);
        const row = toRow(updated.rows[0]!);
        await client.query(outboxInsert(eventsOf(row, current)));
        return row;
      });
    },

    delete(projectId, id, eventsOf, check) {
      return inTransaction(pool, async (client) => {
        if (check) {
          // Locked, so no edit can land between the check and the delete.
          const locked = await client.query<DbComment>(LOCK, [projectId, id]);
          if (!locked.rows[0]) return null;
          check(toRow(locked.rows[0]));
        }
        const deleted = await client.query<DbComment & { deleted_at: Date }>(DELETE, [projectId, id]);
        const first = deleted.rows[0];
        if (!first) return null;
        const row = toRow(first);
        await client.query(outboxInsert(eventsOf(row, first.deleted_at)));
        return row;
      });
    },
  };
}
