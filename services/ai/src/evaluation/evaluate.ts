/**
 * A leave-one-out backtest over a project's resolved tickets (`pnpm tix ai eval`): each ticket is
 * looked up as if it were new, with itself left out of the corpus.
 * - recall@k: the share of tickets (with tags) whose k most similar resolved tickets include one of
 *   the same category (sharing a tag): would the suggestion's sources be about the same problem?
 * - priority: the kNN prediction against the priority the ticket was closed with, as precision and
 *   coverage at each threshold from 0.5 to 0.95 in 0.05 steps, then 0.99 (preview/threshold-figures.ts).
 */
import type pg from 'pg';
import type { Retriever } from '../retrieval/retriever.js';
import { K, vote } from '../predictions/knn.js';
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

const round = (value: number) => Math.round(value * 1000) / 1000;

export async function evaluate(
  deps: { pool: pg.Pool; retriever: Retriever },
  projectId: number,
  k: number,
): Promise<EvaluationResult> {
  const { rows: tickets } = await deps.pool.query<{
    ticket_id: number;
    title: string;
    description: string;
    priority: string;
    tags: string[];
  }>(
    `SELECT ticket_id, title, description, priority, tags FROM ai_documents
      WHERE project_id = $1 AND is_closed AND resolution_reply IS NOT NULL AND NOT deleted
      ORDER BY ticket_id DESC LIMIT ${EVALUATION_LIMIT}`,
    [projectId],
  );
  let tagged = 0;
  let found = 0;
  const predictions: LabelledPrediction[] = [];
  for (const ticket of tickets) {
    const query = {
      projectIds: [projectId],
      title: ticket.title,
      body: ticket.description,
      excludeTicketId: ticket.ticket_id,
    };
    const sources = await deps.retriever.similarClosed({ ...query, withReply: true, limit: k });
    if (ticket.tags.length > 0) {
      tagged += 1;
      if (sources.some((source) => source.tags.some((tag) => ticket.tags.includes(tag)))) found += 1;
    }
    const neighbours = await deps.retriever.similarClosed({ ...query, withReply: false, limit: K });
    const priority = vote(neighbours, (neighbour) => neighbour.priority);
    if (priority !== null)
      predictions.push({
        confidence: priority.confidence,
        label: priority.value === ticket.priority ? 'correct' : 'incorrect',
        value: priority.value,
      });
  }
  return {
    resolvedTickets: tickets.length,
    recallAtK: tagged === 0 ? 0 : round(found / tagged),
    k,
    // Every backtest prediction is labelled; a threshold nothing passes has precision 0 here.
    priorityCurve: curveOf(predictions, tickets.length).map((point) => ({
      ...point,
      precision: point.precision ?? 0,
    })),
  };
}
