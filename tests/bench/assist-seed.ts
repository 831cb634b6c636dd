/**
 * Seeds the ai service's corpus (services/ai/prisma/migrations) with a support desk's history,
 * straight into its tables, as the consumer would have left them after months of events:
 * - ai_documents: one row per ticket of the desk (assist-desk.ts), ids and numbers 1..N, one every
 *   few minutes over the past year. Most are closed as resolved, with the agent's public reply as
 *   their resolution reply; some closed without (won't fix, duplicate); some still open. The
 *   weighted tsvector is the table's generated column, computed as the rows go in;
 * - ai_comments: the agent's public reply, the customer's follow-up, the internal note with its
 *   secret, where the ticket has them;
 * - ai_lexeme_df: one INSERT ... SELECT over the documents (per project, in how many documents each
 *   lexeme occurs), what the consumer keeps incrementally;
 * then VACUUM (ANALYZE), what autovacuum would have done to tables that grew over months.
 * Rows go in as batches of arrays (`unnest`), since every text differs.
 */
import type pg from 'pg';
import type { Desk, DeskTicket } from './assist-desk.js';
import type { ProjectStatus } from './environment.js';

export interface AssistSeedPlan {
  documents: number;
  projectId: number;
  prefix: string;
  ticketTypeId: number;
  /** The project's workflow: the first closed status closes, the open ones hold the rest. */
  statuses: ProjectStatus[];
  /** Who filed every ticket (the customer). */
  filedBy: number;
  /** The agents who resolve tickets, indexed by the corpus's resolverIndex. */
  resolvers: number[];
  desk: Desk;
  seed: number;
  batchSize?: number;
}

export interface AssistSeedResult {
  documents: number;
  resolved: number;
  comments: number;
  lexemes: number;
  milliseconds: number;
  /** ai_documents and ai_comments with their indexes (the tsvectors and GIN indexes most of it). */
  documentsMiB: number;
  commentsMiB: number;
}

/** Shares of the desk's tickets by state: the rest is resolved. */
const UNRESOLVED_CLOSED = 0.05;
const STILL_OPEN = 0.1;
const SPAN_MS = 365 * 86_400_000;

const INSERT_DOCUMENTS = `
  INSERT INTO ai_documents (ticket_id, project_id, ticket_type_id, ticket_number, title, description,
    status, is_closed, priority, resolution_type, tags, assigned_to, created_by, created_at, closed_at,
    version, resolution_reply, resolution_comment_id, predicted_at)
  SELECT id, $1, $2, $3 || '-' || id, title, description, status, status = ANY($4::text[]), priority,
         resolution_type, string_to_array(tags, ','), assigned_to, $5, created_at, closed_at,
         version, reply, reply_id, now()
    FROM unnest($6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
                $13::int[], $14::timestamptz[], $15::timestamptz[], $16::int[], $17::text[], $18::int[])
      AS t(id, title, description, status, priority, resolution_type, tags, assigned_to, created_at,
           closed_at, version, reply, reply_id)`;

const INSERT_COMMENTS = `
  INSERT INTO ai_comments (id, ticket_id, project_id, user_id, is_internal, content, created_at, updated_at)
  SELECT id, ticket_id, $1, user_id, is_internal, content, created_at, created_at
    FROM unnest($2::int[], $3::int[], $4::int[], $5::boolean[], $6::text[], $7::timestamptz[])
      AS c(id, ticket_id, user_id, is_internal, content, created_at)`;

const COUNT_LEXEMES = `
  INSERT INTO ai_lexeme_df (project_id, lexeme, documents)
  SELECT project_id, lexeme, count(*)::int
    FROM ai_documents, unnest(tsvector_to_array(tsv)) AS lexeme
   GROUP BY project_id, lexeme`;

interface DocumentRow {
  id: number;
  ticket: DeskTicket;
  status: string;
  resolutionType: string | null;
  assignedTo: number | null;
  createdAt: string;
  closedAt: string | null;
  version: number;
  reply: string | null;
  replyId: number | null;
}

interface CommentRow {
  id: number;
  ticketId: number;
  userId: number;
  isInternal: boolean;
  content: string;
  createdAt: string;
}

/** What happened to a ticket: it follows from its position, so it is as deterministic as its text. */
function fateOf(index: number): 'open' | 'unresolved' | 'resolved' {
  const share = ((index * 7_919) % 1_000) / 1_000;
  return share < STILL_OPEN ? 'open' : share < STILL_OPEN + UNRESOLVED_CLOSED ? 'unresolved' : 'resolved';
}

/** Seeds `plan.documents` tickets into an empty corpus; answers what it made and the time taken. */
export async function seedAssistCorpus(pool: pg.Pool, plan: AssistSeedPlan): Promise<AssistSeedResult> {
  const started = performance.now();
  const existing = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM ai_documents');
  if (existing.rows[0]!.count > 0)
    throw new Error(`the corpus already has ${existing.rows[0]!.count} documents`);
  const closed = plan.statuses.filter((status) => status.is_closed).map((status) => status.slug);
  const open = plan.statuses.filter((status) => !status.is_closed).map((status) => status.slug);
  if (closed.length === 0 || open.length === 0) throw new Error('the project needs open and closed statuses');

  const tickets = plan.desk.tickets({ count: plan.documents, seed: plan.seed });
  const firstAt = Date.now() - SPAN_MS;
  const batchSize = plan.batchSize ?? 2_000;
  let comments = 0;
  let resolved = 0;
  for (let from = 0; from < tickets.length; from += batchSize) {
    const documents: DocumentRow[] = [];
    const written: CommentRow[] = [];
    const comment = (ticketId: number, userId: number, isInternal: boolean, content: string, at: number) => {
      comments += 1;
      written.push({
        id: comments,
        ticketId,
        userId,
        isInternal,
        content,
        createdAt: new Date(at).toISOString(),
      });
      return comments;
    };
    for (const ticket of tickets.slice(from, from + batchSize)) {
      const id = ticket.index + 1;
      const fate = fateOf(ticket.index);
      const resolver = plan.resolvers[ticket.resolverIndex % plan.resolvers.length]!;
      const createdAt = firstAt + (ticket.index / tickets.length) * SPAN_MS;
      // Answered within a day, closed ten minutes later.
      const answeredAt = createdAt + 3_600_000 + (ticket.index % 48) * 1_800_000;
      if (ticket.customerComment !== undefined)
        comment(id, plan.filedBy, false, ticket.customerComment, createdAt + 1_800_000);
      const replyId = fate === 'open' ? null : comment(id, resolver, false, ticket.reply, answeredAt);
      if (ticket.internalNote !== undefined) {
        const noteAt = answeredAt + (ticket.internalNote.afterReply ? 60_000 : -60_000);
        comment(id, resolver, true, ticket.internalNote.content, noteAt);
      }
      if (fate === 'resolved') resolved += 1;
      documents.push({
        id,
        ticket,
        status: fate === 'open' ? open[ticket.index % open.length]! : closed[0]!,
        resolutionType:
          fate === 'open'
            ? null
            : fate === 'resolved'
              ? 'resolved'
              : ticket.index % 2
                ? 'wont_fix'
                : 'duplicate',
        assignedTo: fate === 'open' && ticket.index % 3 === 0 ? null : resolver,
        createdAt: new Date(createdAt).toISOString(),
        closedAt: fate === 'open' ? null : new Date(answeredAt + 600_000).toISOString(),
        version: fate === 'open' ? 1 : 3,
        reply: fate === 'resolved' ? ticket.reply : null,
        replyId: fate === 'resolved' ? replyId : null,
      });
    }
    await pool.query(INSERT_DOCUMENTS, [
      plan.projectId,
      plan.ticketTypeId,
      plan.prefix,
      closed,
      plan.filedBy,
      documents.map((row) => row.id),
      documents.map((row) => row.ticket.title),
      documents.map((row) => row.ticket.description),
      documents.map((row) => row.status),
      documents.map((row) => row.ticket.priority),
      documents.map((row) => row.resolutionType),
      documents.map((row) => row.ticket.tags.join(',')),
      documents.map((row) => row.assignedTo),
      documents.map((row) => row.createdAt),
      documents.map((row) => row.closedAt),
      documents.map((row) => row.version),
      documents.map((row) => row.reply),
      documents.map((row) => row.replyId),
    ]);
    await pool.query(INSERT_COMMENTS, [
      plan.projectId,
      written.map((row) => row.id),
      written.map((row) => row.ticketId),
      written.map((row) => row.userId),
      written.map((row) => row.isInternal),
      written.map((row) => row.content),
      written.map((row) => row.createdAt),
    ]);
  }
  const lexemes = await pool.query(COUNT_LEXEMES);
  await pool.query('VACUUM (ANALYZE) ai_documents, ai_comments, ai_lexeme_df');
  const size = await pool.query<{ documents: string; comments: string }>(
    `SELECT pg_total_relation_size('ai_documents') AS documents, pg_total_relation_size('ai_comments') AS comments`,
  );
  return {
    documents: tickets.length,
    resolved,
    comments,
    lexemes: lexemes.rowCount ?? 0,
    milliseconds: performance.now() - started,
    documentsMiB: Math.round(Number(size.rows[0]!.documents) / 2 ** 20),
    commentsMiB: Math.round(Number(size.rows[0]!.comments) / 2 ** 20),
  };
}
