/**
 * Reads of the activity log: a page at or below a snapshot (newest first), the entries after a
 * cursor (oldest first), one ticket's history (oldest first). Every read bounds itself by the log's
 * head, read first: rows are numbered and committed in order (log-store.ts), so everything up to
 * the head is there and the next poll continues exactly after it.
 */
import type pg from 'pg';
import type { FieldChange, PageWindow } from '@tix/protos';
import { logPosition } from '../log/log-store.js';
import type { LogPosition } from '../log/poll.js';
import { typeCondition } from '../log/type-match.js';

/** Conditions on entries; every given one must hold. */
export interface ActivityFilter {
  /**
   * Empty: every project. Else these projects' entries, and the entries of no project (a global
   * kill switch) made after the first of them.
   */
  projectIds: readonly number[];
  ticketId?: number;
  actorId?: number;
  actorKind?: string;
  /** Exact types or prefixes ending in `.*`; empty: every type. */
  types: readonly string[];
  field?: string;
  since?: string;
  until?: string;
}

/** One entry as read, with its ticket's number and latest title. */
export interface ActivityRow {
  id: string;
  type: string;
  occurred_at: Date;
  project_id: number | null;
  actor_kind: string;
  actor_user_id: number | null;
  actor_api_key_id: number | null;
  via_type: string | null;
  via_id: string | null;
  ticket_id: number | null;
  changes: Record<string, FieldChange>;
  comment_id: number | null;
  comment_internal: boolean | null;
  comment_excerpt: string | null;
  filename: string | null;
  details: Record<string, unknown> | null;
  ticket_number: string | null;
  title: string | null;
}

const SELECT_ENTRIES = `
  SELECT a.id, a.type, a.occurred_at, a.project_id, a.actor_kind, a.actor_user_id, a.actor_api_key_id,
         a.via_type, a.via_id, a.ticket_id, a.changes, a.comment_id, a.comment_internal,
         a.comment_excerpt, a.filename, a.details, s.ticket_number, s.title
    FROM activities a LEFT JOIN ticket_subjects s ON s.id = a.ticket_id`;

/** SQL conditions (joined with AND) for `filter`, their values appended to `values`. */
export function filterConditions(filter: ActivityFilter, values: unknown[]): string[] {
  const add = (value: unknown) => `$${values.push(value)}`;
  const conditions: string[] = [];
  if (filter.projectIds.length > 0) {
    const projects = add(filter.projectIds);
    // Entries of no project (a global kill switch) concern these projects too, from their first
    // entry on: a project made later was never stopped by it. By id, so pages and polls agree.
    conditions.push(`(a.project_id = ANY(${projects}::int[]) OR (a.project_id IS NULL AND a.id >
      (SELECT min(earliest.id) FROM activities earliest WHERE earliest.project_id = ANY(${projects}::int[]))))`);
  }
  if (filter.ticketId !== undefined) conditions.push(`a.ticket_id = ${add(filter.ticketId)}`);
  if (filter.actorId !== undefined) conditions.push(`a.actor_user_id = ${add(filter.actorId)}`);
  if (filter.actorKind !== undefined) conditions.push(`a.actor_kind = ${add(filter.actorKind)}`);
  if (filter.types.length > 0) conditions.push(typeCondition('a.type', filter.types, add));
  if (filter.field !== undefined) conditions.push(`${add(filter.field)} = ANY(a.changed_fields)`);
  if (filter.since !== undefined) conditions.push(`a.occurred_at >= ${add(filter.since)}`);
  if (filter.until !== undefined) conditions.push(`a.occurred_at < ${add(filter.until)}`);
  return conditions;
}

const where = (conditions: string[]) => (conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`);

export interface FeedStore {
  /** The activity log's head and retention floor. */
  position(): Promise<LogPosition>;
  /** Entries at or below `snapshot`, newest first, and how many match in all. */
  list(
    filter: ActivityFilter,
    snapshot: number,
    page: PageWindow,
  ): Promise<{ rows: ActivityRow[]; total: number }>;
  /** At most `limit` entries numbered in (after, head], oldest first. */
  after(filter: ActivityFilter, after: number, head: number, limit: number): Promise<ActivityRow[]>;
  /** One ticket's entries, oldest first. */
  history(
    projectId: number,
    ticketId: number,
    page: PageWindow,
  ): Promise<{ rows: ActivityRow[]; total: number }>;
  /** Numbers and titles of tickets (merge targets in summaries). */
  subjects(ticketIds: readonly number[]): Promise<Map<number, string>>;
}

export function createFeedStore(pool: pg.Pool): FeedStore {
  async function pageOf(conditions: string[], values: unknown[], order: 'ASC' | 'DESC', page: PageWindow) {
    const counted = await pool.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM activities a ${where(conditions)}`,
      values,
    );
    const { rows } = await pool.query<ActivityRow>(
      `${SELECT_ENTRIES} ${where(conditions)} ORDER BY a.id ${order}
        LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, page.perPage, page.offset],
    );
    return { rows, total: counted.rows[0]?.total ?? 0 };
  }

  return {
    position: () => logPosition(pool, 'activities'),

    list(filter, snapshot, page) {
      const values: unknown[] = [snapshot];
      return pageOf(['a.id <= $1', ...filterConditions(filter, values)], values, 'DESC', page);
    },

    async after(filter, after, head, limit) {
      const values: unknown[] = [after, head];
      const conditions = ['a.id > $1', 'a.id <= $2', ...filterConditions(filter, values)];
      const { rows } = await pool.query<ActivityRow>(
        `${SELECT_ENTRIES} ${where(conditions)} ORDER BY a.id LIMIT $${values.push(limit)}`,
        values,
      );
      return rows;
    },

    history(projectId, ticketId, page) {
      return pageOf(['a.project_id = $1', 'a.ticket_id = $2'], [projectId, ticketId], 'ASC', page);
    },

    async subjects(ticketIds) {
      if (ticketIds.length === 0) return new Map();
      const { rows } = await pool.query<{ id: number; ticket_number: string }>(
        'SELECT id, ticket_number FROM ticket_subjects WHERE id = ANY($1::int[])',
        [ticketIds],
      );
      return new Map(rows.map((row) => [row.id, row.ticket_number]));
    },
  };
}
