/**
 * The assistant's configuration, from the environment, validated once at start. Nothing leaves the
 * fleet unless the operator sets AI_PROVIDER=openai with AI_OPENAI_BASE_URL: the default provider is
 * retrieval on the service's own database, and no URL ever comes from an API caller.
 */
import { z } from 'zod';
import { env, serviceConfig } from '@tix/kit';
import { DEFAULT_MIN_CONFIDENCE } from '@tix/protos';
/** The model asked when AI_OPENAI_MODEL is unset (Ollama's common default). */
export const DEFAULT_MODEL = 'llama3.1';

export const loadConfig = serviceConfig('ai', {
  databasePoolSize: 10,
  peers: {
    lookup: 'the assistant needs the lookup service (which statuses are closed, who may be assigned)',
    tickets: 'the assistant writes its autonomous actions (and their reverts) through the ticket service',
    comments:
      'the assistant posts its drafted replies (and deletes them on a revert) through the comment service',
  },
  variables: {
    /** retrieval (offline, the default) or openai (any OpenAI-compatible server: Ollama, vLLM, a hosted API). */
    AI_PROVIDER: z.enum(['retrieval', 'openai']).default('retrieval'),
    /** The model server's API base, e.g. http://ollama:11434/v1 (required with AI_PROVIDER=openai). */
    AI_OPENAI_BASE_URL: env.optionalUrl,
    /** Sent as a bearer token when set (a Secret in Kubernetes). */
    AI_OPENAI_API_KEY: z.string().optional(),
    /** The model to ask; empty means the default, as compose passes an unset variable. */
    AI_OPENAI_MODEL: z
      .string()
      .optional()
      .transform((value) => (value === undefined || value === '' ? DEFAULT_MODEL : value)),
    /** A model call slower than this falls back to retrieval. */
    AI_OPENAI_TIMEOUT_MS: env.positiveInt(20_000),
    AI_MIN_CONFIDENCE: z.coerce.number().min(0).max(1).default(DEFAULT_MIN_CONFIDENCE),
    /** Unacknowledged broker messages the corpus consumer holds at once. */
    AI_CONSUMER_PREFETCH: env.positiveInt(32),
  },
  check: (values, context) => {
    if (values.AI_PROVIDER === 'openai' && values.AI_OPENAI_BASE_URL === undefined)
      context.addIssue({
        code: 'custom',
        path: ['AI_OPENAI_BASE_URL'],
        message: 'required with AI_PROVIDER=openai (the model server the operator chose)',
      });
  },
  read: (values) => ({
    llm:
      values.AI_PROVIDER === 'openai' && values.AI_OPENAI_BASE_URL !== undefined
        ? {
            baseUrl: values.AI_OPENAI_BASE_URL,
            apiKey: values.AI_OPENAI_API_KEY === '' ? undefined : values.AI_OPENAI_API_KEY,
            model: values.AI_OPENAI_MODEL,
            timeoutMs: values.AI_OPENAI_TIMEOUT_MS,
          }
        : null,
    minConfidence: values.AI_MIN_CONFIDENCE,
    prefetch: values.AI_CONSUMER_PREFETCH,
  }),
});

export type AiConfig = ReturnType<typeof loadConfig>;
export type LlmConfig = NonNullable<AiConfig['llm']>;
