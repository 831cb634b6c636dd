/**
 * The consumer of `tickets.customer-events` (kit durableQueue, declared as producers declare it:
 * quorum, delivery limit 5, dead letters to `tickets.customer-events.dlq`): what the ticket service
 * does when the customer service merges one customer into another (customer.merged). The tickets
 * naming a merged customer as requester or in the cc name the target instead (repoint-customer.ts).
 *
 * A message is acknowledged only once all its batches committed; a redelivered one finds no ticket
 * naming a merged id, so it needs no event-id table. Failures that may pass (database or lookup
 * unreachable, a write race) retry the message in place; unreadable data goes to the dead-letter
 * queue. docs/decisions.md, "A merged customer's tickets follow the merge (issue 28)".
 */
import { durableQueue, SYSTEM_ACTOR, startDomainEventConsumer, type Consumer, type Logger } from '@tix/kit';
import { FLEET, type DomainEvent } from '@tix/protos';
import type { LookupDirectory } from '../lookup/lookup-directory.js';
import { isTransientLookupEventError } from '../lookup-events/lookup-event-consumer.js';
import type { TicketWriteStore } from '../tickets/ticket-write-store.js';
import type { CustomerTicketsStore } from './customer-tickets-store.js';
import { repointCustomerTickets } from './repoint-customer.js';

/** The durable queue this consumer reads (its FLEET entry). */
export const CUSTOMER_EVENTS_QUEUE = durableQueue(
  'tickets.customer-events',
  FLEET.tickets.queues['tickets.customer-events'],
);

export interface CustomerEventDeps {
  lookup: LookupDirectory;
  tickets: CustomerTicketsStore;
  writes: TicketWriteStore;
  logger: Logger;
  /** Tickets per batch (default REPOINT_BATCH_SIZE). */
  batchSize?: number;
}

/** An event whose data this consumer cannot act on: dead-lettered, never retried. */
export class UnreadableCustomerEvent extends Error {
  override readonly name = 'UnreadableCustomerEvent';
}

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2_147_483_647;

/** The merge an event describes: the target (`data.id`) and the ids merged into it. */
function mergeOf(data: Record<string, unknown>): { targetId: number; mergedIds: number[] } {
  const { id: targetId, source_id: sourceId, merged_ids: mergedIds } = data;
  if (!isId(targetId) || !isId(sourceId))
    throw new UnreadableCustomerEvent('customer.merged without an id and a source_id');
  const ids = mergedIds === undefined ? [sourceId] : mergedIds;
  if (!Array.isArray(ids) || ids.length > 10_000 || !ids.every(isId))
    throw new UnreadableCustomerEvent('customer.merged with malformed merged_ids');
  const all = [...new Set<number>([sourceId, ...ids])];
  if (all.includes(targetId)) throw new UnreadableCustomerEvent('customer.merged into one of its merged ids');
  return { targetId, mergedIds: all };
}

/** Does what one customer event means for the ticket service (see the file header). */
export function createCustomerEventHandler(deps: CustomerEventDeps): (event: DomainEvent) => Promise<void> {
  return async (event) => {
    if (event.type !== 'customer.merged') return;
    const { targetId, mergedIds } = mergeOf(event.data);
    const changed = await repointCustomerTickets(deps, {
      mergedIds,
      targetId,
      actor: event.actor ?? { ...SYSTEM_ACTOR },
      correlationId: event.id,
      ...(deps.batchSize ? { batchSize: deps.batchSize } : {}),
    });
    if (changed > 0)
      deps.logger.info(
        { merged_ids: mergedIds, target_id: targetId, changed, event_id: event.id },
        "re-pointed a merged customer's tickets",
      );
  };
}

/** Transient as for lookup's events; unreadable data never is. */
export function isTransientCustomerEventError(error: unknown): boolean {
  return !(error instanceof UnreadableCustomerEvent) && isTransientLookupEventError(error);
}

/** Starts consuming (connecting in the background, retrying until it can). */
export function startCustomerEventConsumer(
  options: CustomerEventDeps & { amqpUrl: string; prefetch?: number },
): Consumer {
  return startDomainEventConsumer({
    url: options.amqpUrl,
    logger: options.logger,
    name: 'customer events consumer',
    queue: CUSTOMER_EVENTS_QUEUE,
    // One at a time: two merges touching the same tickets then run one after the other.
    prefetch: options.prefetch ?? 1,
    handle: createCustomerEventHandler(options),
    isTransient: isTransientCustomerEventError,
  });
}
