/**
 * Shadow predictions: for every new ticket, what the assistant would set (priority, assignee, tags),
 * which older open ticket it looks like a duplicate of, and the reply it would draft, each with
 * confidence, rationale and sources. Recorded whatever the guardrails say (shadow mode): they give
 * autonomy its history from day one, the console offers them for one-click apply (which records the
 * prediction as accepted), and the executor acts on those the guardrails set to auto.
 * Duplicate candidates follow the duplicate guards (docs/assistant.md, "When it acts"): open,
 * unmerged, not deleted, created before the ticket, within DUPLICATE_MAX_AGE_DAYS, never the ticket
 * itself.
 */
import type { ServiceClient } from '@tix/kit';
import { COMMENT_ACTION_TYPES, type AutonomyActionType } from '@tix/protos';
import type pg from 'pg';
import { draftFromHistory } from '../assist/assistant.js';
import { composeReply } from '../assist/compose.js';
import { userNames } from '../peers/users.js';
import type { Neighbour, Retriever } from '../retrieval/retriever.js';
import { K, tagVotes, vote } from './knn.js';

/** Sources a drafted reply lists. */
export const REPLY_SOURCES = 3;

export const DUPLICATE_MAX_AGE_DAYS = 14;
/** Title similarity from which an open ticket is a duplicate candidate. */
export const DUPLICATE_MIN_SIMILARITY = 0.5;

export interface PredictionDraft {
  actionType: AutonomyActionType;
  value: unknown;
  confidence: number;
  rationale: string;
  sources: { ticket_id: number; ticket_number: string; title: string; similarity: number }[];
}

const sourcesOf = (neighbours: readonly Neighbour[], count = 5) =>
  neighbours.slice(0, count).map((neighbour) => ({
    ticket_id: neighbour.ticketId,
    ticket_number: neighbour.ticketNumber,
    title: neighbour.title,
    similarity: Math.round(neighbour.similarity * 1000) / 1000,
  }));

interface TicketText {
  ticket_id: number;
  project_id: number;
  title: string;
  description: string;
  created_at: Date;
  deleted: boolean;
}

export interface PredictionDeps {
  pool: pg.Pool;
  retriever: Retriever;
  /** Names the predicted assignee in the rationale a person reads. */
  lookup: Pick<ServiceClient<'lookup'>, 'GetUsers'>;
}

/** What the assistant predicts for `ticket` from its closed neighbours and older open tickets. */
export async function predictFor(deps: PredictionDeps, ticket: TicketText): Promise<PredictionDraft[]> {
  const neighbours = await deps.retriever.similarClosed({
    projectIds: [ticket.project_id],
    title: ticket.title,
    body: ticket.description,
    excludeTicketId: ticket.ticket_id,
    withReply: false,
    limit: K,
  });
  const drafts: PredictionDraft[] = [];
  const priority = vote(neighbours, (neighbour) => neighbour.priority);
  if (priority !== null)
    drafts.push({
      actionType: 'set_priority',
      value: priority.value,
      confidence: priority.confidence,
      rationale: `${priority.agreeing} of ${priority.voting} similar closed tickets were ${priority.value} priority`,
      sources: sourcesOf(neighbours.filter((neighbour) => neighbour.priority === priority.value)),
    });
  const assignee = vote(neighbours, (neighbour) => neighbour.assignedTo);
  if (assignee !== null) {
    const name = (await userNames(deps, [assignee.value])).get(assignee.value) ?? `User ${assignee.value}`;
    drafts.push({
      actionType: 'assign',
      value: assignee.value,
      confidence: assignee.confidence,
      rationale: `${assignee.agreeing} of ${assignee.voting} similar closed tickets were resolved by ${name}`,
      sources: sourcesOf(neighbours.filter((neighbour) => neighbour.assignedTo === assignee.value)),
    });
  }
  const tags = tagVotes(neighbours);
  if (tags !== null)
    drafts.push({
      actionType: 'add_tags',
      value: tags.tags,
      confidence: tags.confidence,
      rationale: `most similar closed tickets were tagged ${tags.tags.join(', ')}`,
      sources: sourcesOf(
        neighbours.filter((neighbour) => neighbour.tags.some((tag) => tags.tags.includes(tag))),
      ),
    });

  const { rows: duplicates } = await deps.pool.query<{
    ticket_id: number;
    ticket_number: string;
    title: string;
    similarity: number;
  }>(
    `SELECT ticket_id, ticket_number, title, similarity(title, $2) AS similarity
       FROM ai_documents
      WHERE project_id = $1 AND ticket_id <> $3 AND NOT is_closed AND merged_into_id IS NULL AND NOT deleted
        AND created_at < $4 AND created_at >= $4 - make_interval(days => ${DUPLICATE_MAX_AGE_DAYS})
        AND similarity(title, $2) >= ${DUPLICATE_MIN_SIMILARITY}
      ORDER BY similarity DESC, ticket_id
      LIMIT 1`,
    [ticket.project_id, ticket.title, ticket.ticket_id, ticket.created_at],
  );
  const duplicate = duplicates[0];
  if (duplicate !== undefined)
    drafts.push({
      actionType: 'close_duplicate',
      value: { ticket_id: duplicate.ticket_id, ticket_number: duplicate.ticket_number },
      confidence: Math.round(duplicate.similarity * 1000) / 1000,
      rationale: `its title is like that of the older open ticket ${duplicate.ticket_number}`,
      sources: [
        {
          ticket_id: duplicate.ticket_id,
          ticket_number: duplicate.ticket_number,
          title: duplicate.title,
          similarity: Math.round(duplicate.similarity * 1000) / 1000,
        },
      ],
    });
  drafts.push(...(await replyPredictions(deps, ticket)));
  return drafts;
}

/**
 * The reply the assistant would draft for a new ticket, from the best resolved ticket like it (in the
 * neutral tone, redacted), as both reply types: an internal note for an agent, or the public reply.
 * Whether either is posted is the guardrails' decision; recording both lets the preview show each.
 */
async function replyPredictions(
  deps: { pool: pg.Pool; retriever: Retriever },
  ticket: TicketText,
): Promise<PredictionDraft[]> {
  const found = await draftFromHistory(deps, {
    projectIds: [ticket.project_id],
    subject: { title: ticket.title, body: ticket.description },
    excludeTicketId: ticket.ticket_id,
    maxSources: REPLY_SOURCES,
    minConfidence: 0,
  });
  if (typeof found === 'string') return [];
  const { drafted } = found;
  const best = drafted.sources[0]!;
  return COMMENT_ACTION_TYPES.map((actionType) => ({
    actionType,
    value: { content: composeReply(drafted.text, 'neutral').content },
    confidence: drafted.confidence,
    rationale: `the reply that resolved ${best.ticketNumber}, the most similar resolved ticket`,
    sources: drafted.sources.map((source) => ({
      ticket_id: source.ticketId,
      ticket_number: source.ticketNumber,
      title: source.title,
      similarity: source.similarity,
    })),
  }));
}

/** Records the predictions of a ticket the corpus has just seen (once per ticket and action type). */
export async function recordPredictions(deps: PredictionDeps, ticketId: number) {
  const { rows } = await deps.pool.query<TicketText>(
    'SELECT ticket_id, project_id, title, description, created_at, deleted FROM ai_documents WHERE ticket_id = $1',
    [ticketId],
  );
  const ticket = rows[0];
  if (ticket === undefined || ticket.deleted) return;
  for (const draft of await predictFor(deps, ticket)) {
    await deps.pool.query(
      `INSERT INTO ai_predictions (project_id, ticket_id, action_type, value, confidence, rationale, sources)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (ticket_id, action_type) DO NOTHING`,
      [
        ticket.project_id,
        ticketId,
        draft.actionType,
        JSON.stringify(draft.value),
        draft.confidence,
        draft.rationale,
        JSON.stringify(draft.sources),
      ],
    );
  }
}
