/**
 * The optional model server: any OpenAI-compatible chat completions endpoint (Ollama, vLLM,
 * llama.cpp, a hosted API) that the operator configured (AI_PROVIDER=openai). It only rewrites what
 * retrieval found: the prompt holds the ticket, its public comments and the retrieved public replies,
 * never internal notes, and asks for JSON `{ reply, used_source_ids }` answering from those only.
 * Anything else (a timeout, an error status, malformed or empty output, a source id it was not given)
 * throws LlmFailure, and the caller falls back to retrieval. The model's own confidence is never used.
 */
import { z } from 'zod';
import type { LlmConfig } from '../config.js';
import type { Tone } from './compose.js';

export class LlmFailure extends Error {
  override readonly name = 'LlmFailure';
}

export interface LlmSource {
  ticketId: number;
  title: string;
  reply: string;
}

export interface LlmRequest {
  /** What is asked: the ticket to answer, or a question. */
  subject: { title: string; body: string };
  sources: readonly LlmSource[];
  tone: Tone;
}

export interface Llm {
  model: string;
  rewrite(request: LlmRequest): Promise<{ reply: string; usedSourceIds: number[] }>;
}

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

const Rewrite = z.object({
  reply: z.string().trim().min(1).max(10_000),
  used_source_ids: z.array(z.number().int()).max(10),
});

const SYSTEM_PROMPT =
  'You draft replies for a customer support agent. Answer only from the resolved tickets given; ' +
  'if they do not answer the question, say what the agent should check. Never invent links, ' +
  'prices or policies. Reply with JSON only: {"reply": string, "used_source_ids": number[]}.';

function userPrompt(request: LlmRequest): string {
  const sources = request.sources
    .map((source) => `Ticket ${source.ticketId}: ${source.title}\nResolution reply:\n${source.reply}`)
    .join('\n\n---\n\n');
  return (
    `Tone: ${request.tone}.\n\nThe customer's request:\n${request.subject.title}\n${request.subject.body}\n\n` +
    `Resolved tickets:\n\n${sources}`
  );
}

export function createLlm(config: LlmConfig, fetchImpl: typeof fetch = fetch): Llm {
  const endpoint = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    model: config.model,
    async rewrite(request) {
      let response: Response;
      try {
        response = await fetchImpl(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: config.model,
            temperature: 0.2,
            response_format: { type: 'json_object' },
            messages: [
              { role: 'system', content: SYSTEM_PROMPT },
              { role: 'user', content: userPrompt(request) },
            ],
          }),
          signal: AbortSignal.timeout(config.timeoutMs),
        });
      } catch (error) {
        throw new LlmFailure(`model server unreachable or too slow: ${(error as Error).message}`);
      }
      if (!response.ok) throw new LlmFailure(`model server answered ${response.status}`);
      const completion = Completion.safeParse(await response.json().catch(() => null));
      if (!completion.success)
        throw new LlmFailure('model server answered something other than a completion');
      let parsed: unknown;
      try {
        parsed = JSON.parse(completion.data.choices[0]!.message.content);
      } catch {
        throw new LlmFailure('the model did not answer JSON');
      }
      const rewrite = Rewrite.safeParse(parsed);
      if (!rewrite.success) throw new LlmFailure('the model answered JSON without a usable reply');
      const given = new Set(request.sources.map((source) => source.ticketId));
      if (!rewrite.data.used_source_ids.every((id) => given.has(id)))
        throw new LlmFailure('the model cited a ticket it was not given');
      return { reply: rewrite.data.reply, usedSourceIds: rewrite.data.used_source_ids };
    },
  };
}
