/**
 * What became of recorded predictions (docs/assistant.md, "Previewing a threshold"), read from the
 * corpus when a preview asks, so a label is never stale and nothing has to be swept:
 * - `accepted` (someone applied it from the console) is correct;
 * - acted on: reverted is incorrect, acknowledged by a reviewer correct;
 * - otherwise, once a person has had time to decide (the ticket is closed, or older than
 *   DECISION_HOURS), the ticket's value now is the person's decision: the same as predicted is
 *   correct (an action that stood), a different one incorrect. An empty decision (no assignee, no
 *   tags, not merged) says nothing about the prediction and stays unknown, as does a ticket still
 *   being triaged or deleted;
 * - a drafted reply is correct when a person's public reply is like it (trigram similarity of at
 *   least REPLY_ACCEPTED_SIMILARITY) and incorrect when it is not; with no reply from a person, a
 *   posted draft that stood is correct, and one never posted unknown.
 */
import { type AutonomyActionType } from '@tix/protos';
import type pg from 'pg';
import type { Label, LabelledPrediction } from './threshold-figures.js';

/** How long a person has to change what the assistant predicted before the ticket's value counts. */
export const DECISION_HOURS = 72;
/** How like a drafted reply a person's reply must be to count as the draft accepted. */
export const REPLY_ACCEPTED_SIMILARITY = 0.8;

interface PredictionOutcomeRow {
  confidence: number;
  value: unknown;
  outcome: string | null;
  /** The action taken on it, if any, and whether a reviewer acknowledged it. */
  action_status: string | null;
  action_reviewed: boolean;
  /** For the reply types: the best similarity of a person's public reply to the draft (null: none). */
  reply_similarity: number | null;
  decided: boolean;
  priority: string;
  assigned_to: number | null;
  tags: string[];
  merged_into_id: number | null;
  is_closed: boolean;
  deleted: boolean;
}

/** The key of a predicted value for the per-value breakdown. */
export function valueKey(actionType: AutonomyActionType, value: unknown): string {
  if (actionType === 'add_tags' && Array.isArray(value)) return [...(value as string[])].sort().join(',');
  if (actionType === 'close_duplicate' && typeof value === 'object' && value !== null) {
    const number = (value as { ticket_number?: unknown }).ticket_number;
    return typeof number === 'string' ? number : '';
  }
  // Every draft is its own text: one bucket.
  if (actionType === 'post_internal_note' || actionType === 'send_reply') return 'drafted reply';
  return typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** The label of one prediction from its outcome and the ticket as the corpus has it now. */
export function labelOf(actionType: AutonomyActionType, row: PredictionOutcomeRow): Label {
  if (row.outcome === 'accepted') return 'correct';
  if (row.action_status === 'reverted') return 'incorrect';
  if (row.action_status === 'acknowledged' && row.action_reviewed) return 'correct';
  if (row.deleted || !row.decided) return 'unknown';
  switch (actionType) {
    case 'set_priority':
      return row.priority === row.value ? 'correct' : 'incorrect';
    case 'assign':
      if (row.assigned_to === null) return 'unknown';
      return row.assigned_to === row.value ? 'correct' : 'incorrect';
    case 'add_tags': {
      if (row.tags.length === 0) return 'unknown';
      const predicted = Array.isArray(row.value) ? (row.value as string[]) : [];
      return predicted.every((tag) => row.tags.includes(tag)) ? 'correct' : 'incorrect';
    }
    case 'close_duplicate': {
      const target = (row.value as { ticket_id?: unknown } | null)?.ticket_id;
      if (row.merged_into_id !== null) return row.merged_into_id === target ? 'correct' : 'incorrect';
      // Closed without being merged: a person judged it was not a duplicate of anything.
      return row.is_closed ? 'incorrect' : 'unknown';
    }
    case 'post_internal_note':
    case 'send_reply':
      if (row.reply_similarity !== null)
        return row.reply_similarity >= REPLY_ACCEPTED_SIMILARITY ? 'correct' : 'incorrect';
      return row.action_status === 'pending_review' || row.action_status === 'acknowledged'
        ? 'correct'
        : 'unknown';
  }
}

/** The project's predictions of `actionType` recorded since `from`, each with its label. */
export async function labelledPredictions(
  pool: pg.Pool,
  query: { projectId: number; actionType: AutonomyActionType; from: Date },
): Promise<LabelledPrediction[]> {
  const { rows } = await pool.query<PredictionOutcomeRow>(
    `SELECT p.confidence, p.value, p.outcome, a.status AS action_status,
            coalesce(a.reviewed_by IS NOT NULL, false) AS action_reviewed, r.reply_similarity,
            coalesce(d.is_closed OR d.created_at < now() - make_interval(hours => ${DECISION_HOURS}), false) AS decided,
            d.priority, d.assigned_to, coalesce(d.tags, '{}') AS tags, d.merged_into_id,
            coalesce(d.is_closed, false) AS is_closed, coalesce(d.deleted, true) AS deleted
       FROM ai_predictions p LEFT JOIN ai_documents d USING (ticket_id)
       LEFT JOIN LATERAL (SELECT status, reviewed_by FROM ai_actions
                           WHERE prediction_id = p.id ORDER BY id DESC LIMIT 1) a ON true
       -- A person's public replies (not the customer's, not one the assistant posted).
       LEFT JOIN LATERAL (SELECT max(similarity(c.content, p.value ->> 'content')) AS reply_similarity
                            FROM ai_comments c
                           WHERE p.action_type IN ('post_internal_note', 'send_reply')
                             AND c.ticket_id = p.ticket_id AND NOT c.is_internal AND NOT c.deleted
                             AND c.user_id <> d.created_by
                             AND NOT EXISTS (SELECT 1 FROM ai_actions x WHERE x.ticket_id = p.ticket_id
                                                AND x.after ->> 'comment_id' = c.id::text)) r ON true
      WHERE p.project_id = $1 AND p.action_type = $2 AND p.created_at >= $3`,
    [query.projectId, query.actionType, query.from],
  );
  return rows.map((row) => ({
    confidence: row.confidence,
    label: labelOf(query.actionType, row),
    value: valueKey(query.actionType, row.value),
  }));
}
