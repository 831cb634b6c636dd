/**
 * Reads of the event stream (GET /v1/events): a project's events after a sequence number, in
 * commit order, bounded by the stream's head read first (numbers commit in order: log-store.ts).
 */
import type pg from 'pg';
import { logPosition } from '../log/log-store.js';
import type { LogPosition } from '../log/poll.js';
import { typeCondition } from '../log/type-match.js';

export interface StreamedEventRow {
  sequence: string;
  event_id: string;
  type: string;
  body: string;
}

export interface EventQuery {
  projectId: number;
  after: number;
  head: number;
  limit: number;
  /** Exact types or `prefix.*`; empty: every type. */
  types: readonly string[];
  includeComments: boolean;
}

export interface EventStreamStore {
  position(): Promise<LogPosition>;
  after(query: EventQuery): Promise<StreamedEventRow[]>;
}

export function createEventStreamStore(pool: pg.Pool): EventStreamStore {
  return {
    position: () => logPosition(pool, 'events'),

    async after(query) {
      const values: unknown[] = [query.projectId, query.after, query.head];
      const add = (value: unknown) => `$${values.push(value)}`;
      const conditions = ['project_id = $1', 'sequence > $2', 'sequence <= $3'];
      if (query.types.length > 0) conditions.push(typeCondition('type', query.types, add));
      if (!query.includeComments) conditions.push(`type NOT LIKE 'comment.%'`);
      const { rows } = await pool.query<StreamedEventRow>(
        `SELECT sequence, event_id, type, body FROM events WHERE ${conditions.join(' AND ')}
          ORDER BY sequence LIMIT ${add(query.limit)}`,
        values,
      );
      return rows;
    },
  };
}
