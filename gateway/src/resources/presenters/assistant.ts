/**
 * AiService messages -> the API's JSON (docs/assistant.md, "The API"): a suggestion with its
 * provider and sources, availability with what is left of the caller's quota, search results, an
 * answer, the predictions of a ticket. int64 ids become numbers, absent optionals null, and every
 * confidence carries its label, by one rule (confidenceLabel).
 */
import { AppError } from '@tix/kit';
import { confidenceLabel, type ai, type ConfidenceLabel } from '@tix/protos';
import type { RateLimitBudget } from '../../limits/index.js';
import { int64Number } from '../../services.js';

/**
 * What availability reports of autonomy: `killed` while a kill switch (global or the project's) is
 * active, else `active`. Suggestions stay available either way (a human sends them).
 */
export const AUTONOMY_STATUS = 'active';
export const AUTONOMY_KILLED = 'killed';

export interface ProviderJson {
  kind: string;
  model: string;
  external: boolean;
}

export interface SourceJson {
  ticket_id: number;
  ticket_number: string;
  title: string;
  similarity: number;
  comment_id: number | null;
  resolved_at: string | null;
}

export interface SuggestionJson {
  id: number;
  project_id: number;
  ticket_id: number;
  content: string;
  content_html: string;
  is_internal: boolean;
  confidence: number;
  confidence_label: ConfidenceLabel;
  provider: ProviderJson;
  sources: SourceJson[];
  redactions: number;
  generated_at: string;
  tone: string;
}

export interface PredictionJson {
  id: number;
  action_type: string;
  value: unknown;
  confidence: number;
  confidence_label: ConfidenceLabel;
  rationale: string;
  sources: SourceJson[];
  created_at: string;
  outcome: string | null;
  held_back: string | null;
}

function providerOf(provider: ai.Provider__Output | null): ai.Provider__Output {
  if (!provider) throw AppError.internal('the ai service answered without its provider');
  return provider;
}

export function presentProvider(message: ai.Provider__Output | null): ProviderJson {
  const provider = providerOf(message);
  return { kind: provider.kind, model: provider.model, external: provider.external };
}

export function presentSource(source: ai.Source__Output): SourceJson {
  return {
    ticket_id: source.ticket_id,
    ticket_number: source.ticket_number,
    title: source.title,
    similarity: source.similarity,
    comment_id: source.comment_id ?? null,
    resolved_at: source.resolved_at ?? null,
  };
}

export function presentSuggestion(message: ai.Suggestion__Output): SuggestionJson {
  return {
    id: int64Number(message.id, 'ai'),
    project_id: message.project_id,
    ticket_id: message.ticket_id,
    content: message.content,
    content_html: message.content_html,
    is_internal: message.is_internal,
    confidence: message.confidence,
    confidence_label: confidenceLabel(message.confidence),
    provider: presentProvider(message.provider),
    sources: message.sources.map(presentSource),
    redactions: message.redactions,
    generated_at: message.generated_at,
    tone: message.tone,
  };
}

/** `{ suggestion }`, or `{ suggestion: null, reason, min_confidence }` when there is none. */
export function presentSuggestReplyResult(result: ai.SuggestReplyResult__Output) {
  if (result.suggestion) return { suggestion: presentSuggestion(result.suggestion) };
  return {
    suggestion: null,
    reason: result.reason ?? 'no_confident_match',
    min_confidence: result.min_confidence,
  };
}

/**
 * Availability as the ai service sees it, plus the caller's quota (null: the gateway runs without
 * rate limits). A spent quota makes an otherwise available assistant `rate_limited`; a reason of the
 * service's own (no history yet, a provider down) comes first, since waiting would not cure it.
 */
export function presentAvailability(message: ai.Availability__Output, budget: RateLimitBudget | null) {
  const provider = providerOf(message.provider);
  const spent = budget !== null && budget.remaining === 0;
  return {
    available: message.available && !spent,
    reason: message.available ? (spent ? 'rate_limited' : null) : (message.reason ?? null),
    provider: { ...presentProvider(provider), fallback: provider.fallback ?? null },
    autonomy: message.autonomy_killed ? AUTONOMY_KILLED : AUTONOMY_STATUS,
    rate_limit: budget && {
      limit: budget.limit,
      remaining: budget.remaining,
      reset_at: new Date(budget.resetAtMs).toISOString(),
      window_seconds: Math.round(budget.windowMs / 1000),
    },
    corpus: { resolved_tickets: message.resolved_tickets, min_required: message.min_required },
  };
}

export function presentSearchHit(hit: ai.SearchHit__Output) {
  return {
    ticket_id: hit.ticket_id,
    project_id: hit.project_id,
    ticket_number: hit.ticket_number,
    title: hit.title,
    status: hit.status,
    rank: hit.rank,
    matched_in: hit.matched_in,
    snippet_html: hit.snippet_html,
    comment_id: hit.comment_id ?? null,
  };
}

export function presentSearchPage(page: ai.SearchResultPage__Output) {
  if (!page.pagination) throw AppError.internal('the ai service answered a page without pagination');
  return { results: page.results.map(presentSearchHit), pagination: page.pagination };
}

export function presentAnswer(message: ai.Answer__Output) {
  return {
    answer: message.answer ?? null,
    confidence: message.confidence,
    confidence_label: confidenceLabel(message.confidence),
    provider: presentProvider(message.provider),
    sources: message.sources.map(presentSource),
    reason: message.reason ?? null,
    redactions: message.redactions,
  };
}

export function presentPrediction(message: ai.Prediction__Output): PredictionJson {
  return {
    id: int64Number(message.id, 'ai'),
    action_type: message.action_type,
    value: message.value_json === '' ? null : (JSON.parse(message.value_json) as unknown),
    confidence: message.confidence,
    confidence_label: confidenceLabel(message.confidence),
    rationale: message.rationale,
    sources: message.sources.map(presentSource),
    created_at: message.created_at,
    outcome: message.outcome ?? null,
    held_back: message.held_back ?? null,
  };
}
