/**
 * A real assistant for integration tests (this package's, the gateway's): a fresh migrated database
 * plus the whole service on a free port, removed again by stop(). It needs a lookup service; give it
 * a broker to consume events, or apply events directly with apply(), and a ticket service for
 * autonomous actions to be written.
 *
 *   const assistant = await startTestAiServer({ lookupAddress: lookup.address, amqpUrl: vhost.url });
 *   const client = createServiceClient('ai', assistant.address, { deadlineMs: 5_000 });
 */
import { createServiceClient, type Logger } from '@tix/kit';
import { startTestService, testLogger } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import type { AiConfig } from './config.js';
import { actOnPredictions, assistantUser } from './actions/executor.js';
import { applyEvent } from './corpus/apply-event.js';
import { createClosedStatuses } from './corpus/closed-statuses.js';
import { createCorpusStore } from './corpus/corpus-store.js';
import { predictPending } from './predictions/worker.js';
import { createRetriever } from './retrieval/retriever.js';
import { aiService, type AiServiceOptions } from './server.js';

export { AI_MIGRATIONS_DIR } from './server.js';

export interface TestAiServerOptions
  extends AiServiceOptions, Partial<Pick<AiConfig, 'llm' | 'minConfidence' | 'prefetch'>> {
  /** "host:port" of the lookup service. */
  lookupAddress: string;
  /** "host:port" of the ticket service (the autonomous actions' writes); default: nothing listens. */
  ticketsAddress?: string;
  /** "host:port" of the comment service (the reply actions' writes); default: nothing listens. */
  commentsAddress?: string;
  label?: string;
  databaseUrl?: string;
  logger?: Logger;
  /** The broker to consume domain events from; without it, events are applied with apply(). */
  amqpUrl?: string;
}

export type TestAiServer = Awaited<ReturnType<typeof startTestAiServer>>;

/** Where no service listens (the discard port): tests without autonomy never call tickets or comments. */
const NO_SERVICE = '127.0.0.1:9';

export async function startTestAiServer(options: TestAiServerOptions) {
  const {
    lookupAddress,
    ticketsAddress,
    commentsAddress,
    label,
    databaseUrl,
    logger,
    amqpUrl,
    fetch,
    ...config
  } = options;
  const service = await startTestService(aiService({ fetch }), {
    label,
    databaseUrl,
    logger,
    amqpUrl,
    config: {
      peers: {
        lookup: lookupAddress,
        tickets: ticketsAddress ?? NO_SERVICE,
        comments: commentsAddress ?? NO_SERVICE,
      },
      ...config,
    },
  });
  const lookup = createServiceClient('lookup', lookupAddress, { deadlineMs: 5_000 });
  const tickets = createServiceClient('tickets', ticketsAddress ?? NO_SERVICE, { deadlineMs: 5_000 });
  const comments = createServiceClient('comments', commentsAddress ?? NO_SERVICE, { deadlineMs: 5_000 });
  const retriever = createRetriever(service.pool);
  const executor = {
    pool: service.pool,
    tickets,
    comments,
    lookup,
    assistantUserId: assistantUser(lookup),
    logger: logger ?? testLogger('ai executor'),
  };
  const deps = { corpus: createCorpusStore(service.pool), closedStatuses: createClosedStatuses(lookup) };
  return {
    ...service,
    /**
     * Applies `event` to the corpus exactly as the consumer would (no broker needed), then records the
     * predictions the worker would and takes the actions it would, so a test sees them at once.
     */
    apply: async (event: DomainEvent) => {
      await applyEvent(deps, event);
      await predictPending({
        pool: service.pool,
        retriever,
        lookup,
        act: (ticketId) => actOnPredictions(executor, ticketId),
      });
    },
    stop: async (graceMs?: number) => {
      lookup.close();
      tickets.close();
      comments.close();
      await service.stop(graceMs);
    },
  };
}
