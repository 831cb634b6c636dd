/** Reading what a service wrote to its outbox (outbox_events), from its database. */
import type pg from 'pg';

export interface OutboxRow {
  seq: string;
  id: string;
  event_type: string;
  payload: {
    id: string;
    type: string;
    source: string;
    project_id?: number;
    occurred_at: string;
    actor?: unknown;
    changes?: unknown;
    defaulted_fields?: string[];
    data: unknown;
  };
}

/** The outbox's newest sequence number (0 when empty), to read only what an operation writes next. */
export async function outboxMark(sql: pg.Pool): Promise<number> {
  const { rows } = await sql.query<{ max: string | null }>('SELECT max(seq) FROM outbox_events');
  return Number(rows[0]?.max ?? 0);
}

/** Outbox rows written after `mark`, in order. */
export async function outboxSince(sql: pg.Pool, mark: number): Promise<OutboxRow[]> {
  const { rows } = await sql.query<OutboxRow>(
    'SELECT seq, id, event_type, payload FROM outbox_events WHERE seq > $1 ORDER BY seq',
    [mark],
  );
  return rows;
}
