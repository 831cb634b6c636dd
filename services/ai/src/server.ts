/**
 * The assistant: the consumer that keeps its corpus from ticket and comment events, the worker that
 * records the shadow predictions of new tickets, and the gRPC API over it (suggestions, search, answers,
 * predictions, evaluation, autonomy), on one database. Its outbox carries the autonomy events
 * (ai.guardrails_updated, ai.kill_switch_*, ai.action_*); its peers are lookup, and tickets and comments,
 * through which it writes its autonomous actions.
 * main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, durableQueue, grpcService, startDomainEventConsumer } from '@tix/kit';
import { FLEET } from '@tix/protos';
import { actOnPredictions, assistantUser } from './actions/executor.js';
import { aiHandlers } from './ai-handlers.js';
import { createLlm } from './assist/llm.js';
import { loadConfig } from './config.js';
import { applyEvent, isTransientCorpusError } from './corpus/apply-event.js';
import { createClosedStatuses } from './corpus/closed-statuses.js';
import { createCorpusStore } from './corpus/corpus-store.js';
import { recordCorpusLag } from './metrics.js';
import { startPredictionWorker } from './predictions/worker.js';
import { createRetriever } from './retrieval/retriever.js';

export const AI_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** The durable queue of ticket and comment events (its FLEET entry). */
export const AI_EVENTS_QUEUE = durableQueue('ai.events', FLEET.ai.queues['ai.events']);

export interface AiServiceOptions {
  /** The model server's fetch (tests point it at a fake; default: the global fetch). */
  fetch?: typeof fetch;
}

export function aiService(options: AiServiceOptions = {}) {
  return defineTixService({
    name: 'ai',
    config: loadConfig,
    migrations: AI_MIGRATIONS_DIR,
    peers: ['lookup', 'tickets', 'comments'],
    outbox: true,
    register: ({ config, pool, logger, peers }) => {
      const retriever = createRetriever(pool);
      const corpus = createCorpusStore(pool);
      const closedStatuses = createClosedStatuses(peers.lookup);
      const act = (ticketId: number) =>
        actOnPredictions(
          {
            pool,
            tickets: peers.tickets,
            comments: peers.comments,
            lookup: peers.lookup,
            assistantUserId: assistantUser(peers.lookup),
            logger,
          },
          ticketId,
        );
      return {
        grpc: grpcService(
          'ai',
          aiHandlers({
            pool,
            retriever,
            llm: config.llm === null ? null : createLlm(config.llm, options.fetch),
            minConfidence: config.minConfidence,
            logger,
            lookup: peers.lookup,
            tickets: peers.tickets,
            comments: peers.comments,
          }),
        ),
        consumers: {
          events: () =>
            startDomainEventConsumer({
              url: config.amqpUrl,
              logger,
              name: 'corpus consumer',
              queue: AI_EVENTS_QUEUE,
              prefetch: config.prefetch,
              isTransient: isTransientCorpusError,
              handle: async (event) => {
                await applyEvent({ corpus, closedStatuses }, event);
                recordCorpusLag(event.occurred_at);
              },
            }),
        },
        workers: {
          predictions: startPredictionWorker({ pool, retriever, lookup: peers.lookup, act, logger }),
        },
      };
    },
  });
}
