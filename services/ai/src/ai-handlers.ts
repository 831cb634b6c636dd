/** gRPC handlers of the AiService: translate messages to the assistant's use cases and back. */
import { AppError, type AsyncHandlers, type Caller } from '@tix/kit';
import {
  confidenceLabel,
  pageWindow,
  paginationOf,
  type ai,
  AUTONOMY_ACTION_TYPES,
  type AutonomyActionType,
  SOURCE_LIMITS,
  ERROR_MESSAGES,
} from '@tix/protos';
import type { ActionRow } from './actions/action-store.js';
import { heldBack, type HeldBack } from './actions/plan-action.js';
import { acknowledgeAction, listActions, revertAction, type ReviewDeps } from './actions/review.js';
import {
  answerQuestion,
  MIN_RESOLVED,
  RETRIEVAL_PROVIDER,
  resolvedCount,
  suggestReply,
  type AssistantDeps,
  type SourceInfo,
} from './assist/assistant.js';
import {
  activateKillSwitch,
  clearKillSwitch,
  killSwitchActive,
  readAutonomy,
  updateGuardrails,
  type AutonomyDeps,
  type AutonomyView,
} from './autonomy/autonomy.js';
import { ensureProjectRows, findGuardrails, readGuardrails } from './autonomy/autonomy-store.js';
import { defaultGuardrails } from './autonomy/guardrails.js';
import { evaluate, DEFAULT_THRESHOLD } from './evaluation/evaluate.js';
import { readTicketSubject, type TicketSubject } from './peers/tickets.js';
import { userNames } from './peers/users.js';
import { PREVIEW_WINDOW_DAYS, previewThreshold } from './preview/threshold-preview.js';
import { searchTickets } from './search/search-tickets.js';

export type AiHandlers = AsyncHandlers<ai.AiServiceHandlers>;

/** Sources per answer, within SOURCE_LIMITS (0: the default). */
const sourcesWanted = (value: number) =>
  Math.min(Math.max(value || SOURCE_LIMITS.default, SOURCE_LIMITS.min), SOURCE_LIMITS.max);

function sourceMessage(source: SourceInfo): ai.Source {
  return {
    ticket_id: source.ticketId,
    ticket_number: source.ticketNumber,
    title: source.title,
    similarity: source.similarity,
    ...(source.commentId === null ? {} : { comment_id: source.commentId }),
    ...(source.resolvedAt === null ? {} : { resolved_at: source.resolvedAt }),
  };
}

interface PredictionRow {
  id: string;
  project_id: number;
  ticket_id: number;
  action_type: string;
  value: unknown;
  confidence: number;
  rationale: string;
  sources: { ticket_id: number; ticket_number: string; title: string; similarity: number }[];
  created_at: Date;
  outcome: string | null;
  outcome_at: Date | null;
}

/** A Prediction message; `held` when the assistant's own rules hold it back on the ticket now. */
function predictionMessage(row: PredictionRow, held: HeldBack | null): ai.Prediction {
  return {
    id: row.id,
    project_id: row.project_id,
    ticket_id: row.ticket_id,
    action_type: row.action_type,
    value_json: JSON.stringify(row.value),
    confidence: row.confidence,
    rationale: row.rationale,
    sources: row.sources,
    created_at: row.created_at.toISOString(),
    ...(row.outcome === null ? {} : { outcome: row.outcome }),
    ...(row.outcome_at === null ? {} : { outcome_at: row.outcome_at.toISOString() }),
    ...(held === null ? {} : { held_back: held }),
  };
}

/** An Autonomy message: absent fields for nulls, the guardrails object as JSON text. */
function autonomyMessage(view: AutonomyView): ai.Autonomy {
  const { kill_switch: kill } = view;
  return {
    ...(view.project_id === null ? {} : { project_id: view.project_id }),
    kill_switch: {
      active: kill.active,
      ...(kill.scope === null ? {} : { scope: kill.scope }),
      ...(kill.reason === null ? {} : { reason: kill.reason }),
      ...(kill.activated_at === null ? {} : { activated_at: kill.activated_at }),
      ...(kill.activated_by === null ? {} : { activated_by: kill.activated_by }),
      ...(kill.cleared_at === null ? {} : { cleared_at: kill.cleared_at }),
      ...(kill.cleared_by === null ? {} : { cleared_by: kill.cleared_by }),
    },
    status: view.status,
    ...(view.guardrails === null ? {} : { guardrails_json: JSON.stringify(view.guardrails) }),
    ...(view.stats_24h === null ? {} : { stats_24h: view.stats_24h }),
  };
}

/** A project id the gateway resolved: 400 for none (0) or a malformed one. */
function projectIdOf(value: number | undefined): number | null {
  if (value === undefined) return null;
  if (!Number.isInteger(value) || value < 1) throw AppError.badRequest('Invalid project id');
  return value;
}

/** The AutonomousAction message of an action row, with the names of who reviewed or reverted it. */
function actionMessage(row: ActionRow, names: Map<number, string>): ai.AutonomousAction {
  const ref = (id: number | null) => (id === null ? undefined : { id, name: names.get(id) ?? `User ${id}` });
  const sources = Array.isArray(row.sources) ? (row.sources as Partial<ai.Source>[]) : [];
  return {
    id: row.id,
    project_id: row.project_id,
    ticket_id: row.ticket_id,
    ticket_number: row.ticket_number,
    action_type: row.action_type,
    status: row.status,
    confidence: row.confidence,
    confidence_label: confidenceLabel(row.confidence),
    threshold: row.threshold,
    before_json: JSON.stringify(row.before),
    after_json: JSON.stringify(row.after),
    rationale: row.rationale,
    sources: sources.map((source) => ({
      ticket_id: source.ticket_id ?? 0,
      ticket_number: source.ticket_number ?? '',
      title: source.title ?? '',
      similarity: source.similarity ?? 0,
    })),
    ticket_version_before: row.ticket_version_before,
    ...(row.ticket_version_after === null ? {} : { ticket_version_after: row.ticket_version_after }),
    ...(row.conflict === null ? {} : { conflict_json: JSON.stringify(row.conflict) }),
    provider: RETRIEVAL_PROVIDER,
    guardrails_version: row.guardrails_version,
    created_at: row.created_at.toISOString(),
    ...(row.reviewed_by === null ? {} : { reviewed_by: ref(row.reviewed_by) }),
    ...(row.reviewed_at === null ? {} : { reviewed_at: row.reviewed_at.toISOString() }),
    ...(row.review_note === null ? {} : { review_note: row.review_note }),
    ...(row.reverted_by === null ? {} : { reverted_by: ref(row.reverted_by) }),
    ...(row.reverted_at === null ? {} : { reverted_at: row.reverted_at.toISOString() }),
    ...(row.revert_reason === null ? {} : { revert_reason: row.revert_reason }),
    irreversible_effects:
      row.action_type === 'send_reply' ? ['customer_may_have_seen_it', 'webhooks_delivered'] : [],
  };
}

const ACTION_SORTS = ['-created_at', 'created_at', 'confidence'] as const;

export function aiHandlers(
  deps: AssistantDeps & Pick<AutonomyDeps, 'lookup'> & Pick<ReviewDeps, 'tickets' | 'comments'>,
): AiHandlers {
  /** Who reviewed or reverted the actions, by id (a missing one is shown as "User 9"). */
  const namesOf = (rows: ActionRow[], caller: Caller) =>
    userNames(
      deps,
      rows.flatMap((row) => [row.reviewed_by, row.reverted_by]),
      caller,
    );
  const configured =
    deps.llm === null ? RETRIEVAL_PROVIDER : { kind: 'openai', model: deps.llm.model, external: true };
  /** The rows' messages, each held back or not by the project's guardrails on `ticket` as it is now. */
  const predictionMessages = async (
    projectId: number,
    ticket: Pick<TicketSubject, 'priority'>,
    rows: readonly PredictionRow[],
  ): Promise<ai.Prediction[]> => {
    // No row yet: the defaults, as the executor reads them.
    const guardrails = (await findGuardrails(deps.pool, projectId))?.document ?? defaultGuardrails();
    return rows.map((row) =>
      predictionMessage(
        row,
        heldBack(guardrails, ticket, { actionType: row.action_type as AutonomyActionType, value: row.value }),
      ),
    );
  };
  return {
    async SuggestReply(request, context) {
      const subject = await readTicketSubject(
        deps.tickets,
        { projectId: request.project_id, ticketId: request.ticket_id },
        context,
      );
      const result = await suggestReply(deps, {
        projectId: request.project_id,
        ticketId: request.ticket_id,
        title: subject.title,
        description: subject.description,
        tone: request.tone,
        maxSources: sourcesWanted(request.max_sources),
        minConfidence: request.min_confidence,
        userId: context.principal?.user_id ?? null,
      });
      const floor = request.min_confidence ?? deps.minConfidence;
      if ('reason' in result) return { reason: result.reason, min_confidence: floor };
      const { suggestion } = result;
      return {
        min_confidence: floor,
        suggestion: {
          id: suggestion.id,
          project_id: request.project_id,
          ticket_id: request.ticket_id,
          content: suggestion.composed.content,
          content_html: suggestion.composed.contentHtml,
          is_internal: false,
          confidence: suggestion.confidence,
          confidence_label: confidenceLabel(suggestion.confidence),
          provider: suggestion.provider,
          sources: suggestion.sources.map(sourceMessage),
          redactions: suggestion.composed.redactions,
          generated_at: suggestion.generatedAt,
          tone: suggestion.tone,
        },
      };
    },

    async GetAvailability(request, context) {
      if (request.ticket_id !== undefined)
        await readTicketSubject(
          deps.tickets,
          { projectId: request.project_id, ticketId: request.ticket_id },
          context,
        );
      const [resolved, killed] = await Promise.all([
        resolvedCount(deps.pool, [request.project_id]),
        killSwitchActive(deps.pool, request.project_id),
      ]);
      return {
        available: resolved >= MIN_RESOLVED,
        ...(resolved >= MIN_RESOLVED ? {} : { reason: 'insufficient_history' }),
        provider: { ...configured, ...(deps.llm === null ? {} : { fallback: 'retrieval' }) },
        resolved_tickets: resolved,
        min_required: MIN_RESOLVED,
        autonomy_killed: killed,
      };
    },

    async SearchTickets(request) {
      const { hits, pagination } = await searchTickets(deps.pool, {
        projectIds: request.project_ids,
        q: request.q,
        page: pageWindow(request.page),
        includeInternal: request.include_internal,
      });
      return {
        results: hits.map((hit) => ({
          ticket_id: hit.ticket_id,
          project_id: hit.project_id,
          ticket_number: hit.ticket_number,
          title: hit.title,
          status: hit.status,
          rank: hit.rank,
          matched_in: hit.matched_in,
          snippet_html: hit.snippet,
          ...(hit.comment_id === null ? {} : { comment_id: hit.comment_id }),
        })),
        pagination,
      };
    },

    async AnswerQuestion(request) {
      const answered = await answerQuestion(deps, {
        projectIds: request.project_ids,
        question: request.question,
        maxSources: sourcesWanted(request.max_sources),
      });
      if (typeof answered === 'string')
        return { confidence: 0, provider: configured, sources: [], reason: answered, redactions: 0 };
      return {
        answer: answered.answer,
        confidence: answered.confidence,
        provider: answered.provider,
        sources: answered.sources.map(sourceMessage),
        redactions: answered.redactions,
      };
    },

    async ListPredictions(request, context) {
      const ticket = await readTicketSubject(
        deps.tickets,
        { projectId: request.project_id, ticketId: request.ticket_id },
        context,
      );
      const { rows } = await deps.pool.query<PredictionRow>(
        `SELECT * FROM ai_predictions WHERE project_id = $1 AND ticket_id = $2 ORDER BY action_type`,
        [request.project_id, request.ticket_id],
      );
      return { predictions: await predictionMessages(request.project_id, ticket, rows) };
    },

    async RecordPredictionOutcome(request, context) {
      if (request.outcome !== 'accepted') throw AppError.validation({ outcome: ['must be accepted'] });
      const { rows: found } = await deps.pool.query<{ ticket_id: number }>(
        'SELECT ticket_id FROM ai_predictions WHERE project_id = $1 AND id = $2',
        [request.project_id, request.id],
      );
      if (found[0] === undefined) throw AppError.notFound(ERROR_MESSAGES.predictionNotFound);
      // The answer is held back or not as the list says: on the ticket as it is now.
      const ticket = await readTicketSubject(
        deps.tickets,
        { projectId: request.project_id, ticketId: found[0].ticket_id },
        context,
      );
      const { rows } = await deps.pool.query<PredictionRow>(
        `UPDATE ai_predictions SET outcome = $3, outcome_at = coalesce(outcome_at, now())
          WHERE project_id = $1 AND id = $2 RETURNING *`,
        [request.project_id, request.id, request.outcome],
      );
      if (rows[0] === undefined) throw AppError.notFound(ERROR_MESSAGES.predictionNotFound);
      return (await predictionMessages(request.project_id, ticket, rows))[0]!;
    },

    async Evaluate(request) {
      const k = request.k || 3;
      // Beyond the sources a suggestion can show, recall@k would measure nothing a user sees.
      if (k < 1 || k > SOURCE_LIMITS.max)
        throw AppError.validation({ k: [`must be from 1 to ${SOURCE_LIMITS.max}`] });
      const result = await evaluate(deps, request.project_id, k);
      return {
        project_id: request.project_id,
        resolved_tickets: result.resolvedTickets,
        recall_at_k: result.recallAtK,
        k: result.k,
        priority_curve: result.priorityCurve,
        default_threshold: DEFAULT_THRESHOLD,
      };
    },

    async GetAutonomy(request, context) {
      return autonomyMessage(await readAutonomy(deps, projectIdOf(request.project_id), context));
    },

    async UpdateGuardrails(request, context) {
      const { autonomy, warnings } = await updateGuardrails(
        deps,
        {
          projectId: projectIdOf(request.project_id)!,
          guardrailsJson: request.guardrails_json,
          ...(request.version === undefined ? {} : { version: request.version }),
        },
        context,
      );
      return { autonomy: autonomyMessage(autonomy), warnings };
    },

    async ActivateKillSwitch(request, context) {
      const result = await activateKillSwitch(
        deps,
        { projectId: projectIdOf(request.project_id), reason: request.reason },
        context,
      );
      return {
        autonomy: autonomyMessage(result.autonomy),
        cancelled_actions: result.cancelledActions,
        already_active: result.alreadyActive,
      };
    },

    async ClearKillSwitch(request, context) {
      const autonomy = await clearKillSwitch(
        deps,
        { projectId: projectIdOf(request.project_id), reason: request.reason },
        context,
      );
      return autonomyMessage(autonomy);
    },

    async PreviewThreshold(request) {
      const projectId = projectIdOf(request.project_id)!;
      if (!(AUTONOMY_ACTION_TYPES as readonly string[]).includes(request.action_type))
        throw AppError.badRequest(`action_type must be one of ${AUTONOMY_ACTION_TYPES.join(', ')}`);
      const actionType = request.action_type as AutonomyActionType;
      await ensureProjectRows(deps.pool, projectId);
      const guardrails = await readGuardrails(deps.pool, projectId);
      const currentThreshold = guardrails.document.actions[actionType].threshold;
      const preview = await previewThreshold(deps, {
        projectId,
        actionType,
        threshold: request.threshold ?? currentThreshold,
        currentThreshold,
        windowDays: request.window_days || PREVIEW_WINDOW_DAYS,
      });
      return { preview_json: JSON.stringify(preview) };
    },

    async ListActions(request, context) {
      const sort = (ACTION_SORTS as readonly string[]).includes(request.sort)
        ? (request.sort as (typeof ACTION_SORTS)[number])
        : '-created_at';
      const window = pageWindow(request.page);
      const listed = await listActions(deps.pool, {
        projectIds: request.project_ids,
        ...(request.ticket_id === undefined ? {} : { ticketId: request.ticket_id }),
        ...(request.action_type === undefined ? {} : { actionType: request.action_type }),
        ...(request.status === undefined ? {} : { status: request.status }),
        ...(request.since === undefined ? {} : { since: request.since }),
        ...(request.until === undefined ? {} : { until: request.until }),
        ...(request.min_confidence === undefined ? {} : { minConfidence: request.min_confidence }),
        ...(request.max_confidence === undefined ? {} : { maxConfidence: request.max_confidence }),
        sort,
        offset: window.offset,
        limit: window.perPage,
      });
      const known = await namesOf(listed.actions, context);
      return {
        actions: listed.actions.map((row) => actionMessage(row, known)),
        pagination: paginationOf(listed.total, window),
        counts: listed.counts,
      };
    },

    async AcknowledgeAction(request, context) {
      const row = await acknowledgeAction(
        deps.pool,
        {
          projectIds: request.project_ids,
          id: request.id,
          ...(request.note === undefined ? {} : { note: request.note }),
        },
        context,
      );
      return actionMessage(row, await namesOf([row], context));
    },

    async RevertAction(request, context) {
      const result = await revertAction(
        {
          pool: deps.pool,
          tickets: deps.tickets,
          comments: deps.comments,
          names: (ids) => userNames(deps, ids, context),
        },
        {
          projectIds: request.project_ids,
          id: request.id,
          force: request.force,
          ...(request.reason === undefined ? {} : { reason: request.reason }),
        },
        context,
      );
      return {
        action: actionMessage(result.action, await namesOf([result.action], context)),
        ticket: result.ticket,
      };
    },
  };
}
