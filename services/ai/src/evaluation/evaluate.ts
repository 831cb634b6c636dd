/**
 * Leave-one-out backtests over a project's resolved tickets: each ticket is looked up as if it were
 * new, with itself left out of the corpus.
 * - `evaluate` (`pnpm tix ai eval`): recall@k, the share of tickets (with tags) whose k most similar
 *   resolved tickets include one of the same category (sharing a tag): would the suggestion's
 *   sources be about the same problem? And the priority prediction against the priority the ticket
 *   was closed with, as precision and coverage at each threshold of the curve
 *   (preview/threshold-figures.ts).
 * - `backtestPredictions`: the labelled predictions of one action type, for the threshold preview of
 *   a project with too few recorded outcomes (docs/assistant.md); a drafted reply is labelled by
 *   how like the reply that resolved the ticket it is.
 */
import { type AutonomyActionType } from '@tix/protos';
import type pg from 'pg';
import type { Neighbour, Retriever } from '../retrieval/retriever.js';
import { K, tagVotes, vote } from '../predictions/knn.js';
import { draftFromHistory } from '../assist/assistant.js';
import { composeReply } from '../assist/compose.js';
import { REPLY_SOURCES } from '../predictions/predictions.js';
import { REPLY_ACCEPTED_SIMILARITY, valueKey } from '../preview/labels.js';
import { curveOf, type LabelledPrediction } from '../preview/threshold-figures.js';

/** Tickets a backtest looks at, at most (the newest resolved ones). */
export const EVALUATION_LIMIT = 2_000;
export const DEFAULT_THRESHOLD = 0.8;

export interface EvaluationResult {
  resolvedTickets: number;
  recallAtK: number;
  k: number;
  priorityCurve: { threshold: number; coverage: number; precision: number }[];
}

interface ResolvedTicket {
  ticket_id: number;
  title: string;
  description: string;
  priority: string;
  assigned_to: number | null;
  tags: string[];
  resolution_reply: string;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** The project's newest resolved tickets, at most `limit`. */
async function resolvedTickets(pool: pg.Pool, projectId: number, limit: number): Promise<ResolvedTicket[]> {
  const { rows } = await pool.query<ResolvedTicket>(
    `SELECT ticket_id, title, description, priority, assigned_to, tags, resolution_reply FROM ai_documents
      WHERE project_id = $1 AND is_closed AND resolution_reply IS NOT NULL AND NOT deleted
      ORDER BY ticket_id DESC LIMIT $2`,
    [projectId, limit],
  );
  return rows;
}

const lookedUpAsNew = (projectId: number, ticket: ResolvedTicket) => ({
  projectIds: [projectId],
  title: ticket.title,
  body: ticket.description,
  excludeTicketId: ticket.ticket_id,
});

/** What the assistant would have predicted for `ticket` from its neighbours, labelled by what it became. */
function predictionFor(
  actionType: AutonomyActionType,
  ticket: ResolvedTicket,
  neighbours: readonly Neighbour[],
): LabelledPrediction | null {
  switch (actionType) {
    case 'set_priority': {
      const priority = vote(neighbours, (neighbour) => neighbour.priority);
      if (priority === null) return null;
      return {
        confidence: priority.confidence,
        label: priority.value === ticket.priority ? 'correct' : 'incorrect',
        value: valueKey(actionType, priority.value),
      };
    }
    case 'assign': {
      const assignee = vote(neighbours, (neighbour) => neighbour.assignedTo);
      if (assignee === null) return null;
      return {
        confidence: assignee.confidence,
        label:
          ticket.assigned_to === null
            ? 'unknown'
            : assignee.value === ticket.assigned_to
              ? 'correct'
              : 'incorrect',
        value: valueKey(actionType, assignee.value),
      };
    }
    case 'add_tags': {
      const tags = tagVotes(neighbours);
      if (tags === null) return null;
      return {
        confidence: tags.confidence,
        label:
          ticket.tags.length === 0
            ? 'unknown'
            : tags.tags.every((tag) => ticket.tags.includes(tag))
              ? 'correct'
              : 'incorrect',
        value: valueKey(actionType, tags.tags),
      };
    }
    case 'close_duplicate':
      // Resolved tickets carry no record of the duplicates they had when new.
      return null;
    case 'post_internal_note':
    case 'send_reply':
      // Drafted from the replies, not the neighbours' fields: replyBacktest.
      return null;
  }
}

/**
 * The reply the assistant would have drafted for `ticket` as if new, labelled by the reply that
 * resolved it: correct when as alike as a person's accepted draft must be.
 */
async function replyBacktest(
  deps: { pool: pg.Pool; retriever: Retriever },
  projectId: number,
  actionType: AutonomyActionType,
  ticket: ResolvedTicket,
): Promise<LabelledPrediction | null> {
  const found = await draftFromHistory(deps, {
    projectIds: [projectId],
    subject: { title: ticket.title, body: ticket.description },
    excludeTicketId: ticket.ticket_id,
    maxSources: REPLY_SOURCES,
    minConfidence: 0,
  });
  if (typeof found === 'string') return null;
  const { rows } = await deps.pool.query<{ similarity: number }>('SELECT similarity($1, $2) AS similarity', [
    composeReply(found.drafted.text, 'neutral').content,
    ticket.resolution_reply,
  ]);
  return {
    confidence: found.drafted.confidence,
    label: (rows[0]?.similarity ?? 0) >= REPLY_ACCEPTED_SIMILARITY ? 'correct' : 'incorrect',
    value: valueKey(actionType, null),
  };
}

export async function evaluate(
  deps: { pool: pg.Pool; retriever: Retriever },
  projectId: number,
  k: number,
): Promise<EvaluationResult> {
  const tickets = await resolvedTickets(deps.pool, projectId, EVALUATION_LIMIT);
  let tagged = 0;
  let found = 0;
  const predictions: LabelledPrediction[] = [];
  for (const ticket of tickets) {
    const query = lookedUpAsNew(projectId, ticket);
    const sources = await deps.retriever.similarClosed({ ...query, withReply: true, limit: k });
    if (ticket.tags.length > 0) {
      tagged += 1;
      if (sources.some((source) => source.tags.some((tag) => ticket.tags.includes(tag)))) found += 1;
    }
    const neighbours = await deps.retriever.similarClosed({ ...query, withReply: false, limit: K });
    const prediction = predictionFor('set_priority', ticket, neighbours);
    if (prediction !== null) predictions.push(prediction);
  }
  return {
    resolvedTickets: tickets.length,
    recallAtK: tagged === 0 ? 0 : round(found / tagged),
    k,
    // Every backtest prediction of priority is labelled; a threshold nothing passes has precision 0 here.
    priorityCurve: curveOf(predictions, tickets.length).map((point) => ({
      ...point,
      precision: point.precision ?? 0,
    })),
  };
}

/**
 * The predictions of `actionType` the assistant would have made for the project's newest `limit`
 * resolved tickets, each labelled by what the ticket became; null for an action type a backtest
 * cannot label (duplicates). `considered` is how many tickets were looked at (coverage's base).
 */
export async function backtestPredictions(
  deps: { pool: pg.Pool; retriever: Retriever },
  projectId: number,
  actionType: AutonomyActionType,
  limit: number,
): Promise<{ considered: number; predictions: LabelledPrediction[] } | null> {
  if (actionType === 'close_duplicate') return null;
  const tickets = await resolvedTickets(deps.pool, projectId, limit);
  const predictions: LabelledPrediction[] = [];
  for (const ticket of tickets) {
    if (actionType === 'post_internal_note' || actionType === 'send_reply') {
      const prediction = await replyBacktest(deps, projectId, actionType, ticket);
      if (prediction !== null) predictions.push(prediction);
      continue;
    }
    const neighbours = await deps.retriever.similarClosed({
      ...lookedUpAsNew(projectId, ticket),
      withReply: false,
      limit: K,
    });
    const prediction = predictionFor(actionType, ticket, neighbours);
    if (prediction !== null) predictions.push(prediction);
  }
  return { considered: tickets.length, predictions };
}
