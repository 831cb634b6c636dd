/**
 * The consumer of `activity.events` (ticket.*, comment.*, attachment.*, ai.*; kit durableQueue with
 * its FLEET entry, so events published while this service is down wait in the queue). Each
 * event is folded (fold.ts) and recorded (log-store.ts) before it is acknowledged: a crash or a lost
 * channel redelivers it, and its event id makes the second time a no-op. A database outage keeps
 * messages in their prefetch slots and retries them; a malformed event goes to the dead-letter queue.
 */
import { durableQueue, startDomainEventConsumer, type Consumer, type Logger } from '@tix/kit';
import { FLEET } from '@tix/protos';
import { recordConsumed } from '../metrics.js';
import { foldEvent } from './fold.js';
import type { LogStore } from './log-store.js';

export const ACTIVITY_EVENTS_QUEUE = durableQueue(
  'activity.events',
  FLEET.activity.queues['activity.events'],
);

export function startActivityConsumer(options: {
  amqpUrl: string;
  prefetch: number;
  logger: Logger;
  log: LogStore;
}): Consumer {
  return startDomainEventConsumer({
    url: options.amqpUrl,
    logger: options.logger,
    name: 'activity consumer',
    queue: ACTIVITY_EVENTS_QUEUE,
    prefetch: options.prefetch,
    handle: async (event) => {
      const outcome = await options.log.record(foldEvent(event));
      recordConsumed(outcome, event.occurred_at);
    },
  });
}
