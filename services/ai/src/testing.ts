/**
 * A real assistant for integration tests (this package's, the gateway's): a fresh migrated database
 * plus the whole service on a free port, removed again by stop(). It needs a lookup service; give it
 * a broker to consume events, or apply events directly with apply().
 *
 *   const assistant = await startTestAiServer({ lookupAddress: lookup.address, amqpUrl: vhost.url });
 *   const client = createServiceClient('ai', assistant.address, { deadlineMs: 5_000 });
 */
import { createServiceClient, type Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import type { AiConfig } from './config.js';
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
  label?: string;
  databaseUrl?: string;
  logger?: Logger;
  /** The broker to consume domain events from; without it, events are applied with apply(). */
  amqpUrl?: string;
}

export type TestAiServer = Awaited<ReturnType<typeof startTestAiServer>>;

export async function startTestAiServer(options: TestAiServerOptions) {
  const { lookupAddress, label, databaseUrl, logger, amqpUrl, fetch, ...config } = options;
  const service = await startTestService(aiService({ fetch }), {
    label,
    databaseUrl,
    logger,
    amqpUrl,
    config: { lookupAddress, ...config },
  });
  const lookup = createServiceClient('lookup', lookupAddress, { deadlineMs: 5_000 });
  const retriever = createRetriever(service.pool);
  const deps = { corpus: createCorpusStore(service.pool), closedStatuses: createClosedStatuses(lookup) };
  return {
    ...service,
    /**
     * Applies `event` to the corpus exactly as the consumer would (no broker needed), then records the
     * predictions the worker would, so a test sees them at once.
     */
    apply: async (event: DomainEvent) => {
      await applyEvent(deps, event);
      await predictPending({ pool: service.pool, retriever });
    },
    stop: async (graceMs?: number) => {
      lookup.close();
      await service.stop(graceMs);
    },
  };
}
