/**
 * What people do with the assistant's actions (docs/assistant.md, "Reviewing and reverting"): list
 * them (the actions list and the audit queue), acknowledge them, and revert them exactly.
 *
 * A revert restores exactly the fields the action touched, through the ticket service's
 * compare-and-set as the reverting person (`via: ai_revert`), expecting what the action wrote: later
 * edits of other fields survive, and if a touched field changed since, nothing is written and the
 * 409 names each such field with who changed it and when (from the corpus's record of the events).
 * Tags are the exception that needs no expectation: the revert removes exactly the tags the action
 * added that are still there. A duplicate is unmerged back to its status and place in its lane. A
 * reply's comment is deleted while nobody has edited it. Team leads review and revert; only admins
 * force a revert over a later change.
 */
import type pg from 'pg';
import {
  actorOf,
  AppError,
  inTransaction,
  requirePrincipal,
  type Caller,
  type ServiceClient,
} from '@tix/kit';
import {
  roleAtLeast,
  type Principal,
  type ticket,
  AUTONOMY_TEXT_LIMITS,
  COMMENT_ACTION_TYPES,
  type AutonomousActionStatus,
  hasControlCharacters,
  hasLoneSurrogate,
  fitsCodePoints,
  ERROR_MESSAGES,
} from '@tix/protos';
import { findGuardrails } from '../autonomy/autonomy-store.js';
import {
  pausedActionTypes,
  recordActionEvent,
  recordPauseIfTripped,
  type ActionRow,
} from './action-store.js';

export const ACTION_NOT_FOUND = ERROR_MESSAGES.actionNotFound;
export const ACTION_WAS_REVERTED = 'Action was reverted';
export const ACTION_ALREADY_REVERTED = 'Action was already reverted';
export const ACTION_NOT_REVERTIBLE = 'This action cannot be reverted';
export const TICKET_CHANGED_AFTER_ACTION = 'Ticket was changed after this action';

/** Statuses of actions that changed a ticket and stand: a revert applies to them. */
const REVERTIBLE: readonly AutonomousActionStatus[] = ['pending_review', 'acknowledged'];

export interface ReviewDeps {
  pool: pg.Pool;
  tickets: Pick<ServiceClient<'tickets'>, 'CompareAndSetTicket' | 'UnmergeTicket' | 'GetTicket'>;
  comments: Pick<ServiceClient<'comments'>, 'DeleteComment'>;
}

export interface ActionQuery {
  projectIds: readonly number[];
  ticketId?: number;
  actionType?: string;
  status?: string;
  since?: string;
  until?: string;
  minConfidence?: number;
  maxConfidence?: number;
  sort: '-created_at' | 'created_at' | 'confidence';
  offset: number;
  limit: number;
}

const ORDER_BY: Record<ActionQuery['sort'], string> = {
  '-created_at': 'created_at DESC, id DESC',
  created_at: 'created_at, id',
  // Lowest first: the queue's most doubtful actions are the ones to review first.
  confidence: 'confidence, id',
};

/** The actions matching `query`, a page of them, and the counts by review status (status filter aside). */
export async function listActions(pool: pg.Pool, query: ActionQuery) {
  const conditions = ['project_id = ANY($1::int[])'];
  const values: unknown[] = [query.projectIds];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (query.ticketId !== undefined) add((p) => `ticket_id = ${p}`, query.ticketId);
  if (query.actionType !== undefined) add((p) => `action_type = ${p}`, query.actionType);
  if (query.since !== undefined) add((p) => `created_at >= ${p}::timestamptz`, query.since);
  if (query.until !== undefined) add((p) => `created_at < ${p}::timestamptz`, query.until);
  if (query.minConfidence !== undefined) add((p) => `confidence >= ${p}`, query.minConfidence);
  if (query.maxConfidence !== undefined) add((p) => `confidence <= ${p}`, query.maxConfidence);
  const common = conditions.join(' AND ');
  const { rows: counted } = await pool.query<{ status: string; count: number }>(
    `SELECT status, count(*)::int AS count FROM ai_actions WHERE ${common} GROUP BY status`,
    values,
  );
  const countOf = (status: string) => counted.find((row) => row.status === status)?.count ?? 0;
  const statusCondition = query.status === undefined ? '' : ` AND status = $${values.length + 1}`;
  const pageValues = query.status === undefined ? values : [...values, query.status];
  const { rows } = await pool.query<ActionRow>(
    `SELECT * FROM ai_actions WHERE ${common}${statusCondition}
      ORDER BY ${ORDER_BY[query.sort]} LIMIT ${query.limit} OFFSET ${query.offset}`,
    pageValues,
  );
  return {
    actions: rows,
    total:
      query.status === undefined ? counted.reduce((sum, row) => sum + row.count, 0) : countOf(query.status),
    counts: {
      pending_review: countOf('pending_review'),
      acknowledged: countOf('acknowledged'),
      reverted: countOf('reverted'),
    },
  };
}

function requireReviewer(principal: Principal | null, force = false): Principal {
  const caller = requirePrincipal(principal);
  if (!roleAtLeast(caller.role, 'team_lead'))
    throw AppError.permissionDenied('Only team leads and admins may review autonomous actions');
  if (force && !roleAtLeast(caller.role, 'admin'))
    throw AppError.permissionDenied('Only admins may force a revert');
  return caller;
}

function checkText(field: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!fitsCodePoints(value, AUTONOMY_TEXT_LIMITS.review))
    throw AppError.validation({ [field]: [`must be at most ${AUTONOMY_TEXT_LIMITS.review} characters`] });
  if (hasControlCharacters(value, true) || hasLoneSurrogate(value))
    throw AppError.validation({ [field]: ['must not contain control characters'] });
  return value;
}

async function lockAction(
  client: pg.PoolClient,
  id: string,
  projectIds: readonly number[],
): Promise<ActionRow> {
  const { rows } = await client.query<ActionRow>(
    'SELECT * FROM ai_actions WHERE id = $1 AND project_id = ANY($2::int[]) FOR UPDATE',
    [id, projectIds],
  );
  if (rows[0] === undefined) throw AppError.notFound(ACTION_NOT_FOUND);
  return rows[0];
}

/** Marks the action reviewed; acknowledging it again changes nothing. */
export async function acknowledgeAction(
  pool: pg.Pool,
  input: { projectIds: readonly number[]; id: string; note?: string },
  caller: Caller,
): Promise<ActionRow> {
  const reviewer = requireReviewer(caller.principal);
  const note = checkText('note', input.note);
  return inTransaction(pool, async (client) => {
    const action = await lockAction(client, input.id, input.projectIds);
    if (action.status === 'acknowledged') return action;
    if (action.status === 'reverted') throw AppError.conflict(ACTION_WAS_REVERTED);
    if (action.status !== 'pending_review')
      throw new AppError('validation_failed', 'This action changed nothing to review');
    const { rows } = await client.query<ActionRow>(
      `UPDATE ai_actions SET status = 'acknowledged', reviewed_by = $2, reviewed_at = now(), review_note = $3
        WHERE id = $1 RETURNING *`,
      [input.id, reviewer.user_id, note],
    );
    await recordActionEvent(client, 'ai.action_acknowledged', rows[0]!, actorOf(reviewer));
    return rows[0]!;
  });
}

/**
 * "changed to "critical" by Ada at …" for each field of a refused revert, from the corpus's record of
 * who last changed each field; the ticket service's own words while the corpus has not seen the change.
 */
async function whoChanged(
  pool: pg.Pool,
  action: ActionRow,
  refused: Record<string, unknown> | undefined,
  names: (ids: number[]) => Promise<Map<number, string>>,
): Promise<Record<string, string[]>> {
  const fields = Object.keys(refused ?? {});
  const { rows } = await pool.query<
    Record<string, unknown> & { field_changes: Record<string, { user_id: number | null; at: string }> }
  >(
    'SELECT priority, assigned_to, tags, status, resolution_type, merged_into_id, field_changes FROM ai_documents WHERE ticket_id = $1',
    [action.ticket_id],
  );
  const document = rows[0];
  const changes = fields.map((field) => ({ field, change: document?.field_changes[field] }));
  const known = await names(
    changes.map(({ change }) => change?.user_id).filter((id): id is number => typeof id === 'number'),
  );
  return Object.fromEntries(
    changes.map(({ field, change }) => {
      const original = refused?.[field];
      const value = JSON.stringify(document?.[field] ?? null);
      // The corpus has not seen the later change yet (it still holds what the action wrote): the
      // ticket service's own words, without a name.
      if (
        document === undefined ||
        change === undefined ||
        value === JSON.stringify(action.after[field] ?? null)
      )
        return [field, Array.isArray(original) ? original.map(String) : [String(original)]];
      const who =
        change.user_id === null ? 'the system' : (known.get(change.user_id) ?? `User ${change.user_id}`);
      return [field, [`changed to ${value} by ${who} at ${change.at}`]];
    }),
  );
}

/** Reverts the action exactly (see the header); resolves with it and the ticket after the revert. */
export async function revertAction(
  deps: ReviewDeps & { names: (ids: number[]) => Promise<Map<number, string>> },
  input: { projectIds: readonly number[]; id: string; reason?: string; force: boolean },
  caller: Caller,
): Promise<{ action: ActionRow; ticket: ticket.ApiTicket__Output }> {
  const reviewer = requireReviewer(caller.principal, input.force);
  const reason = checkText('reason', input.reason);
  return inTransaction(deps.pool, async (client) => {
    const action = await lockAction(client, input.id, input.projectIds);
    if (action.status === 'reverted') throw AppError.conflict(ACTION_ALREADY_REVERTED);
    if (!REVERTIBLE.includes(action.status)) throw new AppError('validation_failed', ACTION_NOT_REVERTIBLE);
    const principal: Principal = { ...reviewer, via: { type: 'ai_revert', id: Number(action.id) } };
    const context = { principal, correlationId: caller.correlationId };
    let written: ticket.ApiTicket__Output;
    try {
      written = isCommentAction(action.action_type)
        ? await deleteActionComment(deps, action, input.force, context)
        : await writeRevert(deps.tickets, action, input.force, context);
    } catch (error) {
      if (!(error instanceof AppError && error.kind === 'conflict')) throw error;
      throw new AppError(
        'conflict',
        TICKET_CHANGED_AFTER_ACTION,
        isCommentAction(action.action_type)
          ? { comment: [error.message] }
          : await whoChanged(deps.pool, action, error.validationErrors, deps.names),
      );
    }
    const autoPause = (await findGuardrails(client, action.project_id))?.document.auto_pause;
    const wasPaused =
      autoPause !== undefined &&
      (await pausedActionTypes(client, action.project_id, autoPause)).includes(action.action_type);
    const { rows } = await client.query<ActionRow>(
      `UPDATE ai_actions SET status = 'reverted', reverted_by = $2, reverted_at = now(), revert_reason = $3
        WHERE id = $1 RETURNING *`,
      [action.id, reviewer.user_id, reason],
    );
    const reverted = rows[0]!;
    await recordActionEvent(client, 'ai.action_reverted', reverted, actorOf(principal), {
      forced: input.force,
    });
    if (autoPause !== undefined) await recordPauseIfTripped(client, reverted, autoPause, wasPaused);
    return { action: reverted, ticket: written };
  });
}

const isCommentAction = (type: string) => (COMMENT_ACTION_TYPES as readonly string[]).includes(type);

/**
 * A reply type's revert: its comment deleted while its content is still what the assistant wrote (a
 * forced revert deletes it whatever it says now); a comment someone already deleted is a conflict
 * too, since the revert can no longer do what it says. Resolves with the ticket, unchanged.
 */
async function deleteActionComment(
  deps: ReviewDeps,
  action: ActionRow,
  force: boolean,
  context: { principal: Principal; correlationId?: string },
): Promise<ticket.ApiTicket__Output> {
  const { comment_id: commentId, content_sha256: hash } = action.after as {
    comment_id: number;
    content_sha256: string;
  };
  try {
    await deps.comments.DeleteComment(
      {
        project_id: action.project_id,
        id: commentId,
        ...(force ? {} : { expected_content_sha256: hash }),
      },
      context,
    );
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not_found')
      throw AppError.conflict('The comment was deleted after this action');
    throw error;
  }
  return deps.tickets.GetTicket({ project_id: action.project_id, id: action.ticket_id }, context);
}

async function writeRevert(
  tickets: ReviewDeps['tickets'],
  action: ActionRow,
  force: boolean,
  context: { principal: Principal; correlationId?: string },
): Promise<ticket.ApiTicket__Output> {
  const { before, after } = action;
  if (action.action_type === 'close_duplicate') {
    const result = await tickets.UnmergeTicket(
      {
        project_id: action.project_id,
        id: action.ticket_id,
        expected_merged_into_id: Number(after.merged_into_id),
        restore_status: String(before.status),
        ...(action.position_token === null ? {} : { position_token: action.position_token }),
        force,
      },
      context,
    );
    return result.ticket!;
  }
  const added = (after.tags as string[] | undefined)?.filter(
    (tag) => !((before.tags as string[] | undefined) ?? []).includes(tag),
  );
  const result = await tickets.CompareAndSetTicket(
    {
      project_id: action.project_id,
      id: action.ticket_id,
      expected_json: JSON.stringify(action.action_type === 'add_tags' ? {} : after),
      set_json: JSON.stringify(action.action_type === 'add_tags' ? { tags_remove: added ?? [] } : before),
      force,
    },
    context,
  );
  return result.ticket!;
}
