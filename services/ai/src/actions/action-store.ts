/**
 * The autonomous actions (ai_actions): the only module that reads or writes them. An action is
 * inserted `executing` inside the kill switch's gate, then takes the ticket service's answer.
 */
import { newDomainEvent, SYSTEM_ACTOR } from '@tix/kit';
import type { AutonomousActionStatus, EventActor } from '@tix/protos';
import type pg from 'pg';
import { insertEvents } from '../autonomy/autonomy-store.js';
import type { GuardrailsDocument } from '../autonomy/guardrails.js';
import type { ActionPlan } from './plan-action.js';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** Statuses of actions that changed a ticket (and count against the caps). */
export const TAKEN_STATUSES: readonly AutonomousActionStatus[] = [
  'executing',
  'pending_review',
  'acknowledged',
  'reverted',
];

export interface ActionRow {
  id: string;
  project_id: number;
  ticket_id: number;
  ticket_number: string;
  prediction_id: string | null;
  action_type: string;
  status: AutonomousActionStatus;
  confidence: number;
  threshold: number;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  expected: Record<string, unknown>;
  set: Record<string, unknown>;
  rationale: string;
  sources: unknown[];
  position_token: string | null;
  ticket_version_before: number;
  ticket_version_after: number | null;
  guardrails_version: number;
  needs_review: boolean;
  conflict: { message: string; fields?: Record<string, unknown> } | null;
  created_at: Date;
  executed_at: Date | null;
  reviewed_by: number | null;
  reviewed_at: Date | null;
  review_note: string | null;
  reverted_by: number | null;
  reverted_at: Date | null;
  revert_reason: string | null;
}

export interface NewAction {
  projectId: number;
  ticketId: number;
  ticketNumber: string;
  predictionId: string;
  confidence: number;
  rationale: string;
  sources: unknown;
  ticketVersion: number;
  guardrailsVersion: number;
  plan: ActionPlan;
}

export async function insertAction(db: Queryable, action: NewAction): Promise<ActionRow> {
  const { rows } = await db.query<ActionRow>(
    `INSERT INTO ai_actions (project_id, ticket_id, ticket_number, prediction_id, action_type, status,
       confidence, threshold, before, after, expected, set, rationale, sources, ticket_version_before,
       guardrails_version, needs_review)
     VALUES ($1, $2, $3, $4, $5, 'executing', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     RETURNING *`,
    [
      action.projectId,
      action.ticketId,
      action.ticketNumber,
      action.predictionId,
      action.plan.actionType,
      action.confidence,
      action.plan.threshold,
      JSON.stringify(action.plan.before),
      JSON.stringify(action.plan.after),
      JSON.stringify(action.plan.expected),
      JSON.stringify(action.plan.set),
      action.rationale,
      JSON.stringify(action.sources),
      action.ticketVersion,
      action.guardrailsVersion,
      action.plan.needsReview,
    ],
  );
  return rows[0]!;
}

/**
 * The ticket service wrote the action: it waits for review, or counts as acknowledged. Resolves with
 * the row, or null when it was no longer executing.
 */
export async function markExecuted(
  db: Queryable,
  id: string,
  result: { ticketVersion: number; positionToken: string; after?: Record<string, unknown> },
): Promise<ActionRow | null> {
  const { rows } = await db.query<ActionRow>(
    `UPDATE ai_actions
        SET status = CASE WHEN needs_review THEN 'pending_review' ELSE 'acknowledged' END,
            ticket_version_after = $2, position_token = $3, executed_at = now(), after = coalesce($4, after)
      WHERE id = $1 AND status = 'executing' RETURNING *`,
    [id, result.ticketVersion, result.positionToken, result.after ? JSON.stringify(result.after) : null],
  );
  return rows[0] ?? null;
}

export type ActionEventType = 'ai.action_executed' | 'ai.action_acknowledged' | 'ai.action_reverted';

/**
 * Writes an ai.action_* event in the transaction of the change it reports (the outbox): the action
 * as the activity log and any other consumer needs it, `forced` on a revert over a later change.
 */
export async function recordActionEvent(
  client: pg.PoolClient,
  type: ActionEventType,
  row: ActionRow,
  actor: EventActor,
  extra: { forced?: boolean } = {},
): Promise<void> {
  const action = {
    id: Number(row.id),
    project_id: row.project_id,
    ticket_id: row.ticket_id,
    ticket_number: row.ticket_number,
    action_type: row.action_type,
    status: row.status,
    confidence: row.confidence,
    before: row.before,
    after: row.after,
    executed_at: row.executed_at?.toISOString() ?? null,
    reviewed_by: row.reviewed_by,
    reviewed_at: row.reviewed_at?.toISOString() ?? null,
    review_note: row.review_note,
    reverted_by: row.reverted_by,
    reverted_at: row.reverted_at?.toISOString() ?? null,
    revert_reason: row.revert_reason,
    ...(extra.forced === undefined ? {} : { forced: extra.forced }),
  };
  await insertEvents(client, [
    newDomainEvent(type, { action }, { source: 'ai', projectId: row.project_id, actor }),
  ]);
}

/** The ticket changed before the action could be written (skipped_conflict), or the call failed. */
export async function markNotExecuted(
  db: Queryable,
  id: string,
  status: 'skipped_conflict' | 'failed',
  conflict: { message: string; fields?: Record<string, unknown> },
): Promise<void> {
  await db.query(`UPDATE ai_actions SET status = $2, conflict = $3 WHERE id = $1 AND status = 'executing'`, [
    id,
    status,
    JSON.stringify(conflict),
  ]);
}

/** What the caps and the duplicate guard count, read in the gate's transaction. */
export async function actionCounts(
  db: Queryable,
  query: { projectId: number; ticketId: number; actionType: string },
): Promise<{ lastHour: number; onTicket: number; sameTypeOnTicket: number }> {
  const { rows } = await db.query<{ last_hour: number; on_ticket: number; same_type_on_ticket: number }>(
    `SELECT count(*) FILTER (WHERE project_id = $1 AND created_at > now() - interval '1 hour')::int AS last_hour,
            count(*) FILTER (WHERE ticket_id = $2)::int AS on_ticket,
            count(*) FILTER (WHERE ticket_id = $2 AND action_type = $3)::int AS same_type_on_ticket
       FROM ai_actions
      WHERE (project_id = $1 AND created_at > now() - interval '1 hour' OR ticket_id = $2)
        AND status = ANY($4::text[])`,
    [query.projectId, query.ticketId, query.actionType, TAKEN_STATUSES],
  );
  const row = rows[0]!;
  return { lastHour: row.last_hour, onTicket: row.on_ticket, sameTypeOnTicket: row.same_type_on_ticket };
}

/**
 * Auto-pause (docs/assistant.md, "When it acts"): the action types whose revert rate over the last
 * `window_hours` reached `revert_rate`, once at least `min_actions` of them were executed. A
 * circuit breaker computed from the actions themselves, so it lifts by itself as the window moves
 * on (or when an admin raises the limit).
 */
export async function pausedActionTypes(
  db: Queryable,
  projectId: number,
  autoPause: AutoPause,
): Promise<string[]> {
  const rates = await revertRates(db, projectId, autoPause.window_hours);
  return [...rates]
    .filter(([, rate]) => isPaused(rate, autoPause))
    .map(([type]) => type)
    .sort();
}

type AutoPause = GuardrailsDocument['auto_pause'];

interface RevertRate {
  executed: number;
  reverted: number;
}

const isPaused = (rate: RevertRate, autoPause: AutoPause) =>
  rate.executed >= autoPause.min_actions && rate.reverted >= autoPause.revert_rate * rate.executed;

/** Executed and reverted actions per action type over the last `windowHours`. */
async function revertRates(
  db: Queryable,
  projectId: number,
  windowHours: number,
): Promise<Map<string, RevertRate>> {
  const { rows } = await db.query<{ action_type: string; executed: number; reverted: number }>(
    `SELECT action_type, count(*)::int AS executed, count(*) FILTER (WHERE status = 'reverted')::int AS reverted
       FROM ai_actions WHERE project_id = $1 AND executed_at > now() - make_interval(hours => $2::int)
      GROUP BY action_type`,
    [projectId, windowHours],
  );
  return new Map(rows.map((row) => [row.action_type, { executed: row.executed, reverted: row.reverted }]));
}

/**
 * Called in a revert's transaction after the action is marked reverted, with whether its type was
 * paused before: when this revert is the one that paused it, writes ai.action_type_paused (a
 * system event: the breaker tripped, nobody chose to pause).
 */
export async function recordPauseIfTripped(
  client: pg.PoolClient,
  row: ActionRow,
  autoPause: AutoPause,
  wasPaused: boolean,
): Promise<void> {
  if (wasPaused) return;
  const rate = (await revertRates(client, row.project_id, autoPause.window_hours)).get(row.action_type);
  if (rate === undefined || !isPaused(rate, autoPause)) return;
  await insertEvents(client, [
    newDomainEvent(
      'ai.action_type_paused',
      {
        project_id: row.project_id,
        action_type: row.action_type,
        executed: rate.executed,
        reverted: rate.reverted,
        revert_rate: autoPause.revert_rate,
        window_hours: autoPause.window_hours,
      },
      { source: 'ai', projectId: row.project_id, actor: { ...SYSTEM_ACTOR } },
    ),
  ]);
}
