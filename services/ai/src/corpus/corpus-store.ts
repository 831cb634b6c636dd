/**
 * Keeps the corpus from events. Each change runs in one transaction holding the ticket's advisory
 * lock, so two events of one ticket (prefetch hands them to the consumer at once) apply one after the
 * other. Every step is idempotent, which is what makes redeliveries harmless:
 * - a ticket's row takes an event's state only when the event's version is newer than the row's;
 * - a comment's row only when the event's updated_at is not older than the row's;
 * - the resolution reply is recomputed from the rows (resolution.ts);
 * - lexeme document frequencies change by the difference between the ticket's lexemes before and
 *   after, which is empty when nothing changed.
 */
import { inTransaction } from '@tix/kit';
import type pg from 'pg';

/** Advisory lock namespace of corpus writes (the second key is the ticket id). */
const TICKET_LOCK = 7_405;

export interface TicketState {
  ticketId: number;
  projectId: number;
  ticketTypeId: number;
  ticketNumber: string;
  title: string;
  description: string;
  status: string;
  isClosed: boolean;
  priority: string;
  resolutionType: string | null;
  tags: string[];
  assignedTo: number | null;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
  mergedIntoId: number | null;
  deleted: boolean;
  version: number;
  /** From ticket.created only: the priority was the default (the assistant may set it). */
  priorityDefaulted?: boolean;
  /** The fields this change altered (the event's changes), with who made it and when. */
  changed?: { fields: string[]; userId: number | null; at: string };
}

export interface CommentState {
  id: number;
  ticketId: number;
  projectId: number;
  userId: number;
  isInternal: boolean;
  content: string;
  createdAt: string;
  updatedAt: string;
  deleted: boolean;
}

export interface CorpusStore {
  /** Applies a ticket's state; true when the ticket was new to the corpus. */
  applyTicket(state: TicketState): Promise<{ created: boolean; applied: boolean }>;
  applyComment(state: CommentState): Promise<void>;
}

/**
 * The reply that resolved a ticket: the last public, live comment by someone other than the
 * ticket's creator, written before it closed, on a ticket closed as resolved (or without a
 * resolution type), neither merged nor deleted. Internal notes never qualify.
 */
const RESOLUTION_REPLY = `
  SELECT c.id, c.content
    FROM ai_documents d JOIN ai_comments c ON c.ticket_id = d.ticket_id
   WHERE d.ticket_id = $1
     AND d.is_closed AND coalesce(d.resolution_type, 'resolved') = 'resolved'
     AND d.merged_into_id IS NULL AND NOT d.deleted
     AND NOT c.is_internal AND NOT c.deleted AND c.user_id <> d.created_by AND c.created_at <= d.closed_at
   ORDER BY c.created_at DESC, c.id DESC
   LIMIT 1`;

async function lexemesOf(client: pg.PoolClient, ticketId: number): Promise<string[]> {
  const { rows } = await client.query<{ lexemes: string[] }>(
    'SELECT tsvector_to_array(tsv) AS lexemes FROM ai_documents WHERE ticket_id = $1',
    [ticketId],
  );
  return rows[0]?.lexemes ?? [];
}

/** Refreshes the resolution reply and the lexeme frequencies after a change of the ticket's row. */
async function afterChange(client: pg.PoolClient, ticketId: number, projectId: number, before: string[]) {
  const reply = (await client.query<{ id: number; content: string }>(RESOLUTION_REPLY, [ticketId])).rows[0];
  await client.query(
    `UPDATE ai_documents SET resolution_reply = $2, resolution_comment_id = $3
      WHERE ticket_id = $1
        AND (resolution_comment_id IS DISTINCT FROM $3 OR resolution_reply IS DISTINCT FROM $2)`,
    [ticketId, reply?.content ?? null, reply?.id ?? null],
  );
  const after = await lexemesOf(client, ticketId);
  const added = after.filter((lexeme) => !before.includes(lexeme));
  const removed = before.filter((lexeme) => !after.includes(lexeme));
  if (added.length > 0)
    await client.query(
      `INSERT INTO ai_lexeme_df (project_id, lexeme, documents)
       SELECT $1, lexeme, 1 FROM unnest($2::text[]) AS lexeme
       ON CONFLICT (project_id, lexeme) DO UPDATE SET documents = ai_lexeme_df.documents + 1`,
      [projectId, added],
    );
  if (removed.length > 0)
    await client.query(
      `UPDATE ai_lexeme_df SET documents = documents - 1
        WHERE project_id = $1 AND lexeme = ANY($2::text[]) AND documents > 0`,
      [projectId, removed],
    );
}

export function createCorpusStore(pool: pg.Pool): CorpusStore {
  return {
    applyTicket: (state) =>
      inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [TICKET_LOCK, state.ticketId]);
        const existing = await client.query<{ version: number; closed_at: Date | null; is_closed: boolean }>(
          'SELECT version, closed_at, is_closed FROM ai_documents WHERE ticket_id = $1',
          [state.ticketId],
        );
        const current = existing.rows[0];
        if (current !== undefined && current.version >= state.version) {
          // A later change arrived first: the creation still tells whether the priority was a default.
          if (state.priorityDefaulted)
            await client.query('UPDATE ai_documents SET priority_defaulted = true WHERE ticket_id = $1', [
              state.ticketId,
            ]);
          return { created: false, applied: false };
        }
        const before = await lexemesOf(client, state.ticketId);
        // Closed since this change, or still closed since an earlier one; open clears it.
        const closedAt = !state.isClosed ? null : current?.is_closed ? current.closed_at : state.updatedAt;
        await client.query(
          `INSERT INTO ai_documents (ticket_id, project_id, ticket_type_id, ticket_number, title, description,
             status, is_closed, priority, resolution_type, tags, assigned_to, created_by, created_at,
             closed_at, merged_into_id, deleted, version, priority_defaulted, field_changes)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
           ON CONFLICT (ticket_id) DO UPDATE SET
             priority_defaulted = ai_documents.priority_defaulted OR EXCLUDED.priority_defaulted,
             field_changes = ai_documents.field_changes || EXCLUDED.field_changes,
             ticket_type_id = EXCLUDED.ticket_type_id, ticket_number = EXCLUDED.ticket_number,
             title = EXCLUDED.title, description = EXCLUDED.description, status = EXCLUDED.status,
             is_closed = EXCLUDED.is_closed, priority = EXCLUDED.priority,
             resolution_type = EXCLUDED.resolution_type, tags = EXCLUDED.tags,
             assigned_to = EXCLUDED.assigned_to, closed_at = EXCLUDED.closed_at,
             merged_into_id = EXCLUDED.merged_into_id, deleted = EXCLUDED.deleted, version = EXCLUDED.version`,
          [
            state.ticketId,
            state.projectId,
            state.ticketTypeId,
            state.ticketNumber,
            state.title,
            state.description,
            state.status,
            state.isClosed,
            state.priority,
            state.resolutionType,
            state.tags,
            state.assignedTo,
            state.createdBy,
            state.createdAt,
            closedAt,
            state.mergedIntoId,
            state.deleted,
            state.version,
            state.priorityDefaulted ?? false,
            JSON.stringify(
              Object.fromEntries(
                (state.changed?.fields ?? []).map((field) => [
                  field,
                  { user_id: state.changed!.userId, at: state.changed!.at },
                ]),
              ),
            ),
          ],
        );
        await afterChange(client, state.ticketId, state.projectId, before);
        return { created: current === undefined, applied: true };
      }),

    applyComment: (state) =>
      inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [TICKET_LOCK, state.ticketId]);
        const written = await client.query(
          `INSERT INTO ai_comments (id, ticket_id, project_id, user_id, is_internal, content, created_at,
             updated_at, deleted)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (id) DO UPDATE SET
             is_internal = EXCLUDED.is_internal, content = EXCLUDED.content,
             updated_at = EXCLUDED.updated_at, deleted = ai_comments.deleted OR EXCLUDED.deleted
           WHERE ai_comments.updated_at <= EXCLUDED.updated_at OR EXCLUDED.deleted`,
          [
            state.id,
            state.ticketId,
            state.projectId,
            state.userId,
            state.isInternal,
            state.content,
            state.createdAt,
            state.updatedAt,
            state.deleted,
          ],
        );
        if (written.rowCount === 0) return;
        const { rows } = await client.query<{ project_id: number }>(
          'SELECT project_id FROM ai_documents WHERE ticket_id = $1',
          [state.ticketId],
        );
        if (rows[0] === undefined) return; // the ticket's own event comes later and refreshes then
        await afterChange(
          client,
          state.ticketId,
          rows[0].project_id,
          await lexemesOf(client, state.ticketId),
        );
      }),
  };
}
