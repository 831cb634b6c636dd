/**
 * The assistant on the session host (docs/assistant.md, "The API"): suggested replies and whether
 * they can be had, ranked search over tickets and comments, questions answered from resolved
 * tickets, and the predictions recorded for a ticket. Each is validated by assistant.schemas.ts,
 * then makes one AiService call, then resources/presenters/assistant.ts. The ai service answers
 * from its own corpus, kept from events, and reads the ticket asked about itself.
 *
 * Rate limits (limits/config.ts, the spec's table): POST /ai/suggest-reply 30 an hour per caller,
 * /search/* 10 a minute, /search/ai 60 an hour. Availability is not counted: it reports what is left
 * of the suggestion quota.
 */
import type { Principal } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { holdsScope } from '../../middleware/require-access.js';
import {
  aiProviderSchema,
  aiSourceSchema,
  confidenceFields,
  paginationSchema,
  predictionSchema,
  searchResultSchema,
  suggestionSchema,
} from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { json } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { operationGroup, type HandlerInput, type Operation } from '../operation.js';
import {
  AUTONOMY_KILLED,
  AUTONOMY_STATUS,
  presentAnswer,
  presentAvailability,
  presentPrediction,
  presentSearchPage,
  presentSuggestReplyResult,
} from '../../resources/presenters/assistant.js';
import {
  availabilityQuery,
  listPredictionsQuery,
  predictionIdParams,
  searchAiQuery,
  searchTicketsQuery,
  suggestReplyBody,
} from './assistant.schemas.js';

export const SUGGEST_REPLY_PATH = '/ai/suggest-reply';
/** Composing may wait on a model server (AI_OPENAI_TIMEOUT_MS, 20 s by default) before falling back. */
export const ASSISTANT_DEADLINE_MS = 30_000;

/**
 * The projects a search or a list of autonomous actions covers: the one named, else every project
 * the caller may see (a session sees them all; a project-scoped key would see its own).
 */
export async function searchedProjectIds({
  project,
  principal,
  call,
  services,
}: Pick<HandlerInput, 'project' | 'call' | 'services'> & { principal: Principal }): Promise<number[]> {
  if (project) return [project.id];
  const { projects } = await services.lookup.ListProjects(
    principal.project_id === undefined ? {} : { only_project_id: principal.project_id },
    call,
  );
  return projects.map(({ id }) => id);
}

const noSuggestionSchema = z.object({
  suggestion: z.null(),
  reason: z.string().meta({
    description:
      '`no_confident_match` (nothing similar enough) or `insufficient_history` (too few resolved tickets).',
  }),
  min_confidence: z.number().meta({ description: 'The floor the best match stayed below.' }),
});

const availabilitySchema = z.object({
  available: z.boolean().meta({ description: 'Whether POST /ai/suggest-reply would suggest now.' }),
  reason: z
    .string()
    .nullable()
    .meta({
      description:
        'Why not: `disabled`, `insufficient_history`, `provider_unavailable` or `rate_limited` (your hourly ' +
        'quota is spent); null when available.',
    }),
  provider: aiProviderSchema.extend({
    fallback: z
      .string()
      .nullable()
      .meta({ description: 'What answers when the provider fails (`retrieval`); null when nothing does.' }),
  }),
  autonomy: z.string().meta({
    description:
      `\`${AUTONOMY_KILLED}\` while a kill switch (global or the project's) stops autonomous actions, else ` +
      `\`${AUTONOMY_STATUS}\`; suggestions stay available either way.`,
  }),
  rate_limit: z
    .object({
      limit: z.number().int().meta({ description: 'Suggestions allowed per window.' }),
      remaining: z.number().int().meta({ description: 'Suggestions left in the window.' }),
      reset_at: z.string().meta({
        description: 'When the oldest counted suggestion leaves the window (ISO 8601).',
        format: 'date-time',
      }),
      window_seconds: z.number().int(),
    })
    .nullable()
    .meta({
      description:
        'Your suggestion quota, read without spending it; null when the gateway runs without rate limits.',
    }),
  corpus: z.object({
    resolved_tickets: z.number().int().meta({ description: "Resolved tickets in the project's corpus." }),
    min_required: z.number().int().meta({ description: 'Resolved tickets needed before suggesting.' }),
  }),
});

const answerSchema = z.object({
  answer: z.string().nullable().meta({
    description: 'A short answer composed from the sources; null when nothing relevant enough was found.',
  }),
  ...confidenceFields,
  provider: aiProviderSchema,
  sources: z
    .array(aiSourceSchema)
    .meta({ description: 'The resolved tickets the answer draws on, closest first.' }),
  reason: z
    .string()
    .nullable()
    .meta({ description: 'Why there is no answer (`no_confident_match`); null otherwise.' }),
  redactions: z.number().int().meta({ description: 'How many pieces of personal data were replaced.' }),
});

// Served on the session host only, where the role decides; the scopes are those of the role table.
const AGENT = { scope: 'tickets:write', role: 'agent' } as const;
const READER = { scope: 'tickets:read', role: 'viewer' } as const;

/** Suggestions and predictions within the request's project; search and answers over the one named, else all. */
const assistantOperation = operationGroup({ hosts: ['app'], project: 'required', tag: 'Assistant' });
const searchOperation = operationGroup({ hosts: ['app'], project: 'optional', tag: 'Search' });

export const ASSISTANT_OPERATIONS: Operation[] = [
  assistantOperation({
    method: 'post',
    path: SUGGEST_REPLY_PATH,
    access: AGENT,
    request: { body: suggestReplyBody },
    bodyExample: { ticket_id: 42, tone: 'friendly', max_sources: 3, min_confidence: 0.5 },
    operationId: 'suggestReply',
    summary: 'Suggest a reply to a ticket',
    success: json(
      200,
      'The suggestion, or null with the reason.',
      z.union([z.object({ suggestion: suggestionSchema }), noSuggestionSchema]),
      { suggestion: EXAMPLES.suggestion },
    ),
    errors: [404, 504],
    async handle({ body, services, project, call }) {
      // The ai service reads the ticket (404 `Ticket not found` unless it is one of the project's).
      const result = await services.ai.SuggestReply(
        {
          project_id: project.id,
          ticket_id: body.ticket_id,
          tone: body.tone,
          max_sources: body.max_sources,
          ...givenFields(body, 'min_confidence'),
        },
        { ...call, deadlineMs: ASSISTANT_DEADLINE_MS },
      );
      return { data: presentSuggestReplyResult(result) };
    },
  }),

  assistantOperation({
    method: 'get',
    path: `${SUGGEST_REPLY_PATH}/availability`,
    access: AGENT,
    request: { query: availabilityQuery },
    operationId: 'getSuggestReplyAvailability',
    summary: 'Whether replies can be suggested',
    success: json(200, 'Availability.', availabilitySchema, {
      available: true,
      reason: null,
      provider: { ...EXAMPLES.aiProvider, fallback: null },
      autonomy: AUTONOMY_STATUS,
      rate_limit: { limit: 30, remaining: 27, reset_at: '2025-03-14T10:40:00.000Z', window_seconds: 3600 },
      corpus: { resolved_tickets: 1284, min_required: 10 },
    }),
    errors: [],
    async handle({ query, services, rateLimitBudget, project, call }) {
      const [availability, budget] = await Promise.all([
        services.ai.GetAvailability(
          {
            project_id: project.id,
            ...givenFields(query, 'ticket_id'),
          },
          call,
        ),
        rateLimitBudget(SUGGEST_REPLY_PATH),
      ]);
      return { data: presentAvailability(availability, budget) };
    },
  }),

  searchOperation({
    method: 'get',
    path: '/search/tickets',
    access: READER,
    request: { query: searchTicketsQuery },
    operationId: 'searchTickets',
    summary: 'Search tickets and comments',
    success: json(
      200,
      'A page of results, best first.',
      z.object({ results: z.array(searchResultSchema), pagination: paginationSchema }),
      { results: [EXAMPLES.searchResult], pagination: EXAMPLES.pagination },
    ),
    errors: [],
    async handle({ query, services, principal, call, project }) {
      const page = await services.ai.SearchTickets(
        {
          project_ids: await searchedProjectIds({ project, principal, call, services }),
          q: query.q,
          page: { page: query.page, per_page: query.per_page },
          include_internal: holdsScope(principal, 'comments:read'),
        },
        call,
      );
      return { data: presentSearchPage(page) };
    },
  }),

  searchOperation({
    method: 'get',
    path: '/search/ai',
    access: READER,
    request: { query: searchAiQuery },
    operationId: 'answerQuestion',
    summary: 'Ask a question',
    success: json(200, 'The answer and its sources.', answerSchema, {
      answer: EXAMPLES.suggestion.content,
      confidence: 0.82,
      confidence_label: 'medium',
      provider: EXAMPLES.aiProvider,
      sources: EXAMPLES.suggestion.sources,
      reason: null,
      redactions: 1,
    }),
    errors: [504],
    async handle({ query, services, project, principal, call }) {
      const answer = await services.ai.AnswerQuestion(
        {
          project_ids: await searchedProjectIds({ project, principal, call, services }),
          question: query.q,
          max_sources: query.max_sources,
        },
        { ...call, deadlineMs: ASSISTANT_DEADLINE_MS },
      );
      return { data: presentAnswer(answer) };
    },
  }),

  assistantOperation({
    method: 'get',
    path: '/ai/predictions',
    access: AGENT,
    request: { query: listPredictionsQuery },
    operationId: 'listPredictions',
    summary: "A ticket's predictions",
    success: json(200, "The ticket's predictions.", z.object({ predictions: z.array(predictionSchema) }), {
      predictions: [EXAMPLES.prediction],
    }),
    errors: [],
    async handle({ query, services, project, call }) {
      const { predictions } = await services.ai.ListPredictions(
        { project_id: project.id, ticket_id: query.ticket_id },
        call,
      );
      return { data: { predictions: predictions.map(presentPrediction) } };
    },
  }),

  assistantOperation({
    method: 'post',
    path: '/ai/predictions/:id/accept',
    access: AGENT,
    request: { params: predictionIdParams },
    operationId: 'acceptPrediction',
    summary: 'Record that a prediction was applied',
    success: json(200, 'The prediction, accepted.', z.object({ prediction: predictionSchema }), {
      prediction: { ...EXAMPLES.prediction, outcome: 'accepted' },
    }),
    errors: [],
    async handle({ params, services, project, call }) {
      const prediction = await services.ai.RecordPredictionOutcome(
        { project_id: project.id, id: params.id, outcome: 'accepted' },
        call,
      );
      return { data: { prediction: presentPrediction(prediction) } };
    },
  }),
];
