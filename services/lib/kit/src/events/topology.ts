import type { Channel } from 'amqplib';
import { DURABLE_EVENT_QUEUES, EVENTS_DEAD_LETTER_EXCHANGE, EVENTS_EXCHANGE } from '@tix/protos';

/** Declares the event exchange alone: enough for a process that only listens on a private queue. */
export async function assertEventsExchange(channel: Channel): Promise<void> {
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
}

/** Declares the event exchange, the dead-letter exchange and every durable consumer queue (idempotent). */
export async function assertEventTopology(channel: Channel): Promise<void> {
  await assertEventsExchange(channel);
  await channel.assertExchange(EVENTS_DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
  for (const queue of DURABLE_EVENT_QUEUES) {
    await channel.assertQueue(queue.deadLetterQueue, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum' },
    });
    await channel.bindQueue(queue.deadLetterQueue, EVENTS_DEAD_LETTER_EXCHANGE, queue.name);
    await channel.assertQueue(queue.name, { durable: true, arguments: queue.arguments });
    for (const pattern of queue.bindings) await channel.bindQueue(queue.name, EVENTS_EXCHANGE, pattern);
  }
}
