/**
 * The consumer of `webhooks.events` (kit durableQueue, declared exactly as producers declare it:
 * quorum, delivery limit 5, dead letters to `webhooks.events.dlq`), on the kit's
 * startDomainEventConsumer (manual acks, prefetch, reconnects). A message is acknowledged only after
 * `process` has committed what it means (fan-out.ts), so a crash or a lost channel at any point
 * redelivers it, and the event id makes the second time a no-op.
 * - A message that is not a well-formed DomainEvent, or that the database refuses as data, is
 *   rejected without requeue: it goes to the dead-letter queue and the rest keep flowing.
 * - A transient failure (database down) keeps the message and retries it with backoff; with every
 *   prefetch slot busy the broker simply stops sending more until the database is back.
 */
import { durableQueue, startDomainEventConsumer, type Consumer, type Logger } from '@tix/kit';
import { FLEET, type DomainEvent } from '@tix/protos';

/** The durable queue this service consumes (its FLEET entry). */
export const WEBHOOK_EVENTS_QUEUE = durableQueue('webhooks.events', FLEET.webhooks.queues['webhooks.events']);

export interface EventConsumerOptions {
  amqpUrl: string;
  /** Unacknowledged messages held at once. */
  prefetch: number;
  logger: Logger;
  /** Makes the event durable (fan-out); resolves once committed. */
  process: (event: DomainEvent) => Promise<void>;
  /** Classifies a `process` failure: true keeps retrying the message, false dead-letters it. */
  isTransient?: (error: unknown) => boolean;
}

/** isConsuming(); stop(graceMs) stops taking messages, lets those in progress finish, then closes. */
export type EventConsumer = Consumer;

/** Starts consuming (connecting in the background, retrying until it can). */
export function startEventConsumer(options: EventConsumerOptions): EventConsumer {
  return startDomainEventConsumer({
    url: options.amqpUrl,
    logger: options.logger,
    name: 'event consumer',
    queue: WEBHOOK_EVENTS_QUEUE,
    prefetch: options.prefetch,
    handle: options.process,
    ...(options.isTransient ? { isTransient: options.isTransient } : {}),
  });
}
