/**
 * Suggested replies and answers to plain questions, both from the resolved tickets most like what is
 * asked (retrieval/retriever.ts), docs/assistant.md "How it works":
 * - confidence = similarity of the best source x (0.5 + 0.5 x agreement), where agreement is the
 *   trigram similarity of the two best sources' replies (similar problems solved the same way);
 *   with one source, agreement is 0. Below the floor there is no suggestion (`no_confident_match`);
 *   a project with fewer than MIN_RESOLVED resolved tickets has `insufficient_history`;
 * - the text is the best source's reply, re-greeted in the asked tone and redacted (compose.ts), or,
 *   with a model server configured, its rewrite of the sources, falling back to the retrieval text on
 *   any failure. Confidence is always retrieval's;
 * - internal notes are never a source of text: replies are public comments (corpus/corpus-store.ts),
 *   and the model is sent public text only.
 */
import type { Logger } from '@tix/kit';
import type pg from 'pg';
import { recordProviderFailure, recordSuggestion } from '../metrics.js';
import type { Neighbour, Retriever } from '../retrieval/retriever.js';
import { composeReply, toneOf, type ComposedReply, type Tone } from './compose.js';
import { redact } from './redact.js';
import { LlmFailure, type Llm } from './llm.js';

/** Resolved tickets a project needs before suggestions are offered. */
export const MIN_RESOLVED = 10;
export const RETRIEVAL_MODEL = 'tix-retrieval-1';

export interface ProviderInfo {
  kind: 'retrieval' | 'openai';
  model: string;
  external: boolean;
}

export const RETRIEVAL_PROVIDER: ProviderInfo = {
  kind: 'retrieval',
  model: RETRIEVAL_MODEL,
  external: false,
};

export interface AssistantDeps {
  pool: pg.Pool;
  retriever: Retriever;
  llm: Llm | null;
  minConfidence: number;
  logger: Logger;
}

export interface SourceInfo {
  ticketId: number;
  ticketNumber: string;
  title: string;
  similarity: number;
  commentId: number | null;
  resolvedAt: string | null;
}

export interface Drafted {
  /** The reply reused (or the model's rewrite), before greeting and redaction. */
  text: string;
  confidence: number;
  provider: ProviderInfo;
  sources: SourceInfo[];
}

export type Refusal = 'insufficient_history' | 'no_confident_match';

const round = (value: number) => Math.round(value * 1000) / 1000;

export async function resolvedCount(pool: pg.Pool, projectIds: readonly number[]): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM ai_documents
      WHERE project_id = ANY($1::int[]) AND is_closed AND resolution_reply IS NOT NULL AND NOT deleted`,
    [projectIds],
  );
  return rows[0]?.count ?? 0;
}

/** Whether the projects have MIN_RESOLVED resolved tickets (stops counting there). */
async function hasHistory(pool: pg.Pool, projectIds: readonly number[]): Promise<boolean> {
  const { rows } = await pool.query<{ enough: boolean }>(
    `SELECT count(*) >= ${MIN_RESOLVED} AS enough FROM (
       SELECT 1 FROM ai_documents
        WHERE project_id = ANY($1::int[]) AND is_closed AND resolution_reply IS NOT NULL AND NOT deleted
        LIMIT ${MIN_RESOLVED}) resolved`,
    [projectIds],
  );
  return rows[0]?.enough ?? false;
}

async function confidenceOf(pool: pg.Pool, neighbours: readonly Neighbour[]): Promise<number> {
  const [first, second] = neighbours;
  if (first === undefined) return 0;
  let agreement = 0;
  if (second?.resolutionReply && first.resolutionReply) {
    const { rows } = await pool.query<{ agreement: number }>('SELECT similarity($1, $2) AS agreement', [
      first.resolutionReply,
      second.resolutionReply,
    ]);
    agreement = rows[0]?.agreement ?? 0;
  }
  return round(first.similarity * (0.5 + 0.5 * agreement));
}

export interface DraftRequest {
  projectIds: readonly number[];
  subject: { title: string; body: string };
  excludeTicketId?: number;
  maxSources: number;
  minConfidence: number;
}

/**
 * The reply the resolved tickets of `projectIds` give to `subject` (the best source's, never a model's:
 * what the assistant drafts on its own stays on this side of the network), with the neighbours it
 * used; or why there is none.
 */
export async function draftFromHistory(
  deps: Pick<AssistantDeps, 'pool' | 'retriever'>,
  request: DraftRequest,
): Promise<{ drafted: Drafted; used: Neighbour[] } | Refusal> {
  if (!(await hasHistory(deps.pool, request.projectIds))) return 'insufficient_history';
  const neighbours = await deps.retriever.similarClosed({
    projectIds: request.projectIds,
    title: request.subject.title,
    body: request.subject.body,
    ...(request.excludeTicketId === undefined ? {} : { excludeTicketId: request.excludeTicketId }),
    withReply: true,
    limit: Math.max(request.maxSources, 2),
  });
  const confidence = await confidenceOf(deps.pool, neighbours);
  const best = neighbours[0];
  if (!best?.resolutionReply || confidence < request.minConfidence) return 'no_confident_match';
  const used = neighbours.slice(0, request.maxSources);
  const sources = used.map((neighbour) => ({
    ticketId: neighbour.ticketId,
    ticketNumber: neighbour.ticketNumber,
    title: neighbour.title,
    similarity: round(neighbour.similarity),
    commentId: neighbour.resolutionCommentId,
    resolvedAt: neighbour.closedAt?.toISOString() ?? null,
  }));
  return {
    drafted: { text: best.resolutionReply, confidence, provider: RETRIEVAL_PROVIDER, sources },
    used,
  };
}

/**
 * Drafts a reply to `subject` from the resolved tickets of `projectIds`, rewritten by the model
 * server when one is configured (retrieval's text on any failure), or says why not.
 */
export async function draft(
  deps: AssistantDeps,
  request: DraftRequest & { tone: Tone },
): Promise<Drafted | Refusal> {
  const found = await draftFromHistory(deps, request);
  if (typeof found === 'string') return found;
  const { drafted, used } = found;
  if (deps.llm !== null) {
    try {
      const rewritten = await deps.llm.rewrite({
        subject: request.subject,
        sources: used.map((neighbour) => ({
          ticketId: neighbour.ticketId,
          title: neighbour.title,
          reply: neighbour.resolutionReply ?? '',
        })),
        tone: request.tone,
      });
      return {
        ...drafted,
        text: rewritten.reply,
        provider: { kind: 'openai', model: deps.llm.model, external: true },
      };
    } catch (error) {
      if (!(error instanceof LlmFailure)) throw error;
      recordProviderFailure();
      deps.logger.warn({ err: error }, 'assistant: the model server failed; answering from retrieval');
    }
  }
  return drafted;
}

/** The customer's latest public words on a ticket (the creator's last public comment), if any. */
async function customerLastWords(pool: pg.Pool, ticketId: number): Promise<string> {
  const { rows } = await pool.query<{ content: string }>(
    `SELECT c.content FROM ai_comments c JOIN ai_documents d ON d.ticket_id = c.ticket_id
      WHERE c.ticket_id = $1 AND NOT c.is_internal AND NOT c.deleted AND c.user_id = d.created_by
      ORDER BY c.created_at DESC, c.id DESC LIMIT 1`,
    [ticketId],
  );
  return rows[0]?.content ?? '';
}

export interface SuggestionRecord extends Drafted {
  composed: ComposedReply;
  id: string;
  generatedAt: string;
  tone: Tone;
}

export async function suggestReply(
  deps: AssistantDeps,
  request: {
    projectId: number;
    ticketId: number;
    title: string;
    description: string;
    tone: string;
    maxSources: number;
    minConfidence: number | undefined;
    userId: number | null;
  },
): Promise<{ suggestion: SuggestionRecord } | { reason: Refusal }> {
  const tone = toneOf(request.tone);
  const drafted = await draft(deps, {
    projectIds: [request.projectId],
    subject: {
      title: request.title,
      body: `${request.description}\n${await customerLastWords(deps.pool, request.ticketId)}`,
    },
    excludeTicketId: request.ticketId,
    tone,
    maxSources: request.maxSources,
    minConfidence: request.minConfidence ?? deps.minConfidence,
  });
  if (typeof drafted === 'string') {
    recordSuggestion(drafted);
    return { reason: drafted };
  }
  const composed = composeReply(drafted.text, tone);
  const { rows } = await deps.pool.query<{ id: string; created_at: Date }>(
    `INSERT INTO ai_suggestions (project_id, ticket_id, user_id, provider, confidence, sources, content, redactions)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, created_at`,
    [
      request.projectId,
      request.ticketId,
      request.userId,
      drafted.provider.kind,
      drafted.confidence,
      JSON.stringify(drafted.sources),
      composed.content,
      composed.redactions,
    ],
  );
  recordSuggestion('suggested');
  const row = rows[0]!;
  return {
    suggestion: { ...drafted, composed, id: row.id, generatedAt: row.created_at.toISOString(), tone },
  };
}

export interface AnswerRecord extends Drafted {
  answer: string;
  redactions: number;
}

/** A plain question answered from the most relevant resolved tickets of `projectIds`. */
export async function answerQuestion(
  deps: AssistantDeps,
  request: { projectIds: readonly number[]; question: string; maxSources: number },
): Promise<AnswerRecord | Refusal> {
  const drafted = await draft(deps, {
    projectIds: request.projectIds,
    subject: { title: request.question, body: '' },
    tone: 'neutral',
    maxSources: request.maxSources,
    minConfidence: deps.minConfidence,
  });
  if (typeof drafted === 'string') return drafted;
  const { text, redactions } = redact(drafted.text.trim());
  const numbers = drafted.sources.map((source) => source.ticketNumber).join(', ');
  return {
    ...drafted,
    answer: `Similar tickets (${numbers}) were resolved like this:\n\n${text}`,
    redactions,
  };
}
