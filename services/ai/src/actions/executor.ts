/**
 * Acts on a new ticket's predictions where the project's guardrails say `auto` (docs/assistant.md,
 * "When it acts"), after the prediction worker recorded them. For each prediction, duplicates first
 * (a ticket closed as a duplicate needs nothing else):
 * 1. plan-action.ts decides from the guardrails and the ticket as the corpus has it;
 * 2. the action is inserted `executing` inside the kill switch's gate (autonomy/gate.ts), after the
 *    caps are counted there, so once a kill returns no new action starts and two workers never both
 *    take the last slot; a killed gate stops the whole ticket;
 * 3. the ticket service writes it with CompareAndSetTicket as the assistant's system user, the action
 *    named in `via`, so every change it makes says `actor.kind = ai` and which action made it. If a
 *    person changed a touched field since the prediction, nothing is written and the action is
 *    `skipped_conflict`: the assistant never overwrites a person.
 * A prediction is acted on once: a pass that fails half-way (the database, the ticket service) is
 * retried by the worker, and skips the predictions that already have an action.
 */
import { actorOf, AppError, contentSha256, inTransaction, type Logger, type ServiceClient } from '@tix/kit';
import {
  COMMENT_ACTION_TYPES,
  ROLE_SCOPES,
  type AutonomyActionType,
  type CommentActionType,
  type Principal,
} from '@tix/protos';
import type pg from 'pg';
import { findGuardrails } from '../autonomy/autonomy-store.js';
import { withAutonomyGate } from '../autonomy/gate.js';
import type { GuardrailsDocument } from '../autonomy/guardrails.js';
import {
  actionCounts,
  insertAction,
  markExecuted,
  markNotExecuted,
  pausedActionTypes,
  recordActionEvent,
  type ActionRow,
} from './action-store.js';
import { ticketOf } from '../peers/tickets.js';
import { planAction, type ActionContext, type TicketState } from './plan-action.js';

export interface ExecutorDeps {
  pool: pg.Pool;
  tickets: Pick<ServiceClient<'tickets'>, 'CompareAndSetTicket'>;
  /** Where the reply types post (as the assistant's user). */
  comments: Pick<ServiceClient<'comments'>, 'CreateComment'>;
  lookup: Pick<ServiceClient<'lookup'>, 'GetUsers'>;
  /** The assistant's system user id (lookup GetAssistantUser, cached). */
  assistantUserId: () => Promise<number>;
  logger: Logger;
  /** Draws review samples (tests pin it). */
  random?: () => number;
}

interface DocumentRow {
  ticket_id: number;
  project_id: number;
  ticket_type_id: number;
  ticket_number: string;
  status: string;
  is_closed: boolean;
  priority: string;
  priority_defaulted: boolean;
  assigned_to: number | null;
  tags: string[];
  merged_into_id: number | null;
  deleted: boolean;
  created_at: Date;
  created_by: number;
  version: number;
}

interface PredictionRow {
  id: string;
  action_type: AutonomyActionType;
  value: unknown;
  confidence: number;
  rationale: string;
  sources: unknown;
}

/**
 * Duplicates first: once merged, nothing else applies. The public reply before the internal note:
 * once the customer has the reply, a draft of it for an agent is noise.
 */
const ORDER: readonly AutonomyActionType[] = [
  'close_duplicate',
  'set_priority',
  'assign',
  'add_tags',
  'send_reply',
  'post_internal_note',
];

const stateOf = (row: DocumentRow): TicketState => ({
  ticketId: row.ticket_id,
  ticketTypeId: row.ticket_type_id,
  status: row.status,
  isClosed: row.is_closed,
  priority: row.priority,
  priorityDefaulted: row.priority_defaulted,
  assignedTo: row.assigned_to,
  tags: row.tags,
  mergedIntoId: row.merged_into_id,
  deleted: row.deleted,
  createdAt: row.created_at,
});

async function documents(pool: pg.Pool, ticketIds: readonly number[]): Promise<Map<number, DocumentRow>> {
  const { rows } = await pool.query<DocumentRow>(
    `SELECT ticket_id, project_id, ticket_type_id, ticket_number, status, is_closed, priority, priority_defaulted,
            assigned_to, tags, merged_into_id, deleted, created_at, created_by, version
       FROM ai_documents WHERE ticket_id = ANY($1::int[])`,
    [ticketIds],
  );
  return new Map(rows.map((row) => [row.ticket_id, row]));
}

const autoTypes = (guardrails: GuardrailsDocument) =>
  ORDER.filter((type) => guardrails.actions[type].mode === 'auto');

/** The assistant's system user id, asked of lookup once (a failed ask is asked again next time). */
export function assistantUser(
  lookup: Pick<ServiceClient<'lookup'>, 'GetAssistantUser'>,
): () => Promise<number> {
  let asked: Promise<number> | null = null;
  return () => {
    asked ??= lookup.GetAssistantUser({}).then(
      (user) => user.id,
      (error: unknown) => {
        asked = null;
        throw error;
      },
    );
    return asked;
  };
}

/** Acts on the ticket's predictions as its project's guardrails allow; resolves with the actions taken. */
export async function actOnPredictions(deps: ExecutorDeps, ticketId: number): Promise<number> {
  const ticket = (await documents(deps.pool, [ticketId])).get(ticketId);
  if (ticket === undefined || ticket.deleted || ticket.is_closed) return 0;
  // No row yet means the defaults, shadow mode: nothing to do, and nothing written for every new ticket.
  const guardrails = await findGuardrails(deps.pool, ticket.project_id);
  const types = guardrails === null ? [] : autoTypes(guardrails.document);
  if (guardrails === null || types.length === 0) return 0;
  const { rows: predictions } = await deps.pool.query<PredictionRow>(
    `SELECT id, action_type, value, confidence, rationale, sources FROM ai_predictions p
      WHERE ticket_id = $1 AND action_type = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM ai_actions a WHERE a.prediction_id = p.id)`,
    [ticketId, types],
  );
  predictions.sort((a, b) => ORDER.indexOf(a.action_type) - ORDER.indexOf(b.action_type));
  const paused = (await pausedActionTypes(
    deps.pool,
    ticket.project_id,
    guardrails.document.auto_pause,
  )) as AutonomyActionType[];
  let state = ticket;
  let taken = 0;
  /** The assistant replied publicly in this pass (the corpus has not seen it yet). */
  let replied = false;
  for (const prediction of predictions) {
    const toAct = {
      actionType: prediction.action_type,
      value: prediction.value,
      confidence: prediction.confidence,
      sources: Array.isArray(prediction.sources) ? (prediction.sources as { ticket_number: string }[]) : [],
    };
    const context = {
      ...(await contextFor(deps, state, prediction)),
      pausedActionTypes: paused,
      ...(replied ? { replied } : {}),
    };
    const decision = planAction(guardrails.document, stateOf(state), toAct, context);
    if (!decision.act) {
      deps.logger.debug(
        { ticketId, actionType: prediction.action_type, ...decision },
        'assistant did not act',
      );
      continue;
    }
    const gate = await withAutonomyGate(deps.pool, state.project_id, async (client) => {
      // The caps, counted under the gate: two workers on one project never both take the last slot.
      const counts = await actionCounts(client, {
        projectId: state.project_id,
        ticketId,
        actionType: prediction.action_type,
      });
      const recheck = planAction(guardrails.document, stateOf(state), toAct, {
        ...context,
        actionsLastHour: counts.lastHour,
        actionsOnTicket: counts.onTicket,
        alreadyActedOnTicket: counts.sameTypeOnTicket > 0,
      });
      if (!recheck.act) return null;
      return insertAction(client, {
        projectId: state.project_id,
        ticketId,
        ticketNumber: state.ticket_number,
        predictionId: prediction.id,
        confidence: prediction.confidence,
        rationale: prediction.rationale,
        sources: prediction.sources,
        ticketVersion: state.version,
        guardrailsVersion: guardrails.version,
        plan: recheck.plan,
      });
    });
    if (!gate.passed) {
      deps.logger.info({ ticketId, killed: gate.killed }, 'kill switch active: the assistant does not act');
      return taken;
    }
    const action = gate.value;
    if (action === null) continue;
    const principal: Principal = {
      kind: 'ai',
      user_id: await deps.assistantUserId(),
      role: 'agent',
      scopes: [...ROLE_SCOPES.agent],
      via: { type: 'ai_action', id: Number(action.id) },
    };
    if (isCommentAction(action.action_type)) {
      if (await postComment(deps, action, state, principal)) {
        taken += 1;
        replied ||= action.action_type === 'send_reply';
      }
      continue;
    }
    try {
      const result = await deps.tickets.CompareAndSetTicket(
        {
          project_id: state.project_id,
          id: ticketId,
          expected_json: JSON.stringify(action.expected),
          set_json: JSON.stringify(action.set),
          force: false,
        },
        { principal },
      );
      const written = ticketOf(result.ticket);
      await inTransaction(deps.pool, async (client) => {
        const executed = await markExecuted(client, action.id, {
          ticketVersion: written.version,
          positionToken: result.previous_position_token,
        });
        if (executed !== null)
          await recordActionEvent(client, 'ai.action_executed', executed, actorOf(principal));
      });
      taken += 1;
      state = {
        ...state,
        status: written.status,
        priority: written.priority,
        priority_defaulted: false,
        assigned_to: written.assigned_to,
        tags: written.tags,
        merged_into_id: written.merged_into_id,
        version: written.version,
      };
      if (state.merged_into_id !== null) return taken;
    } catch (error) {
      await recordFailure(deps, action, error);
    }
  }
  return taken;
}

const isCommentAction = (type: string): type is CommentActionType =>
  (COMMENT_ACTION_TYPES as readonly string[]).includes(type);

/** Records why the owning service did not write the action: a refusal is a skipped conflict. */
async function recordFailure(deps: ExecutorDeps, action: ActionRow, error: unknown): Promise<void> {
  const refused = error instanceof AppError && error.kind === 'conflict';
  const message = error instanceof AppError ? error.message : 'The owning service did not answer';
  await markNotExecuted(deps.pool, action.id, refused ? 'skipped_conflict' : 'failed', {
    message,
    ...(error instanceof AppError && error.validationErrors ? { fields: error.validationErrors } : {}),
  });
  if (!refused)
    deps.logger.warn(
      { err: error, ticketId: action.ticket_id, actionId: action.id },
      'autonomous action failed',
    );
}

/**
 * Posts a reply type's comment as the assistant; the action keeps the comment's id and the hash of
 * its content, which is what a revert deletes while nobody has edited it. Resolves with whether it
 * was written.
 */
async function postComment(
  deps: ExecutorDeps,
  action: ActionRow,
  state: DocumentRow,
  principal: Principal,
): Promise<boolean> {
  const comment = action.set.comment as { content: string; is_internal: boolean };
  try {
    const written = await deps.comments.CreateComment(
      {
        project_id: state.project_id,
        ticket_id: state.ticket_id,
        content: comment.content,
        is_internal: comment.is_internal,
      },
      { principal },
    );
    await inTransaction(deps.pool, async (client) => {
      const executed = await markExecuted(client, action.id, {
        ticketVersion: state.version,
        positionToken: '',
        after: { comment_id: written.id, content_sha256: contentSha256(written.content) },
      });
      if (executed !== null)
        await recordActionEvent(client, 'ai.action_executed', executed, actorOf(principal));
    });
    return true;
  } catch (error) {
    await recordFailure(deps, action, error);
    return false;
  }
}

/** What planAction needs beyond the ticket and the caps: the assignee, the duplicate target. */
async function contextFor(
  deps: ExecutorDeps,
  ticket: DocumentRow,
  prediction: PredictionRow,
): Promise<ActionContext> {
  // The caps are counted once, under the gate (a capped action opens the gate to find out).
  const context: ActionContext = {
    actionsLastHour: 0,
    actionsOnTicket: 0,
    alreadyActedOnTicket: false,
    pausedActionTypes: [],
    sample: (deps.random ?? Math.random)(),
  };
  if (prediction.action_type === 'assign') {
    const userId = Number(prediction.value);
    const { users } = await deps.lookup.GetUsers({ ids: [userId] });
    const { rows } = await deps.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ai_documents
        WHERE project_id = $1 AND assigned_to = $2 AND NOT is_closed AND NOT deleted`,
      [ticket.project_id, userId],
    );
    context.assignee = { active: users[0]?.is_active === true, openTickets: rows[0]?.count ?? 0 };
  }
  if (isCommentAction(prediction.action_type)) {
    const { rows } = await deps.pool.query<{ replied: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ai_comments c
                       WHERE c.ticket_id = $1 AND NOT c.is_internal AND NOT c.deleted AND c.user_id <> $2) AS replied`,
      [ticket.ticket_id, ticket.created_by],
    );
    context.replied = rows[0]?.replied === true;
  }
  if (prediction.action_type === 'close_duplicate') {
    const targetId = Number((prediction.value as { ticket_id?: unknown } | null)?.ticket_id);
    const target = Number.isInteger(targetId)
      ? (await documents(deps.pool, [targetId])).get(targetId)
      : undefined;
    context.duplicateTarget = target === undefined ? null : stateOf(target);
    const { rows } = await deps.pool.query<{ merged: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM ai_documents WHERE merged_into_id = $1) AS merged',
      [ticket.ticket_id],
    );
    context.sourceHasMergedTickets = rows[0]?.merged === true;
  }
  return context;
}
