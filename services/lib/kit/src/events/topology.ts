import type { Channel } from 'amqplib';
import { EVENTS_DEAD_LETTER_EXCHANGE, EVENTS_EXCHANGE, FLEET, SERVICE_NAMES } from '@tix/protos';

/** A durable consumer queue as RabbitMQ is asked to declare it. */
export interface DurableQueue {
  name: string;
  /** Routing-key patterns bound on EVENTS_EXCHANGE. */
  bindings: readonly string[];
  arguments: Record<string, unknown>;
  /** Where its poison messages go: `<name>.dlq`, bound on EVENTS_DEAD_LETTER_EXCHANGE by `name`. */
  deadLetterQueue: string;
}

/**
 * The one declaration of a durable event queue: a quorum queue whose messages, after 5 failed
 * deliveries, are dead-lettered (at least once) to its own `<name>.dlq`, and which refuses publishes
 * when full rather than dropping the oldest. Producers (before their first publish) and consumers
 * declare it identically, so an event published while its consumer has never run is kept in the
 * queue instead of being dropped as unroutable. `name` and `bindings` come from the fleet map
 * (FLEET[service].queues).
 */
export function durableQueue(name: string, bindings: readonly string[]): DurableQueue {
  return {
    name,
    bindings,
    arguments: {
      'x-queue-type': 'quorum',
      // A message that fails this many times is poison: it goes to the dead-letter queue.
      'x-delivery-limit': 5,
      'x-dead-letter-exchange': EVENTS_DEAD_LETTER_EXCHANGE,
      // Dead letters are routed by queue name, so each queue's dead-letter queue gets only its own.
      'x-dead-letter-routing-key': name,
      'x-dead-letter-strategy': 'at-least-once',
      'x-overflow': 'reject-publish',
    },
    deadLetterQueue: `${name}.dlq`,
  };
}

/** Every durable queue of the fleet map, as durableQueue declares it. */
export const DURABLE_EVENT_QUEUES: readonly DurableQueue[] = SERVICE_NAMES.flatMap((service) =>
  Object.entries<readonly string[]>(FLEET[service].queues).map(([name, bindings]) =>
    durableQueue(name, bindings),
  ),
);

/** Declares the event exchange alone: enough for a process that only listens on a private queue. */
export async function assertEventsExchange(channel: Channel): Promise<void> {
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
}

/** Declares one durable queue, its dead-letter queue and its bindings (idempotent). */
export async function assertDurableQueue(channel: Channel, queue: DurableQueue): Promise<void> {
  await channel.assertQueue(queue.deadLetterQueue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum' },
  });
  await channel.bindQueue(queue.deadLetterQueue, EVENTS_DEAD_LETTER_EXCHANGE, queue.name);
  await channel.assertQueue(queue.name, { durable: true, arguments: queue.arguments });
  for (const pattern of queue.bindings) await channel.bindQueue(queue.name, EVENTS_EXCHANGE, pattern);
}

/** Declares the event exchange, the dead-letter exchange and every durable queue of the fleet (idempotent). */
export async function assertEventTopology(channel: Channel): Promise<void> {
  await assertEventsExchange(channel);
  await channel.assertExchange(EVENTS_DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
  for (const queue of DURABLE_EVENT_QUEUES) await assertDurableQueue(channel, queue);
}
