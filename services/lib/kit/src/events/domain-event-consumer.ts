/**
 * The usual consumer of a service: one durable queue of domain events (declared in protos
 * DURABLE_EVENT_QUEUES, so producers keep its events even before it first runs), each message
 * decoded with parseDomainEvent (a malformed one is dead-lettered at once) and acknowledged only
 * after `handle` committed its work. Failures that may pass (isTransientDatabaseError by default)
 * retry the message in place; anything else dead-letters it.
 */
import { DURABLE_EVENT_QUEUES, type DomainEvent } from '@tix/protos';
import { isTransientDatabaseError } from '../db/pool.js';
import { startConsumer, type BrokerOptions, type ConsumeOptions, type Consumer } from './broker.js';
import { parseDomainEvent } from './parse-event.js';

export interface DomainEventConsumerOptions
  extends BrokerOptions, Omit<ConsumeOptions<DomainEvent>, 'queue' | 'decode'> {
  /** A queue of DURABLE_EVENT_QUEUES. */
  queue: string;
}

/** Starts consuming (connecting in the background, retrying until it can). */
export function startDomainEventConsumer(options: DomainEventConsumerOptions): Consumer {
  if (!DURABLE_EVENT_QUEUES.some((queue) => queue.name === options.queue)) {
    throw new Error(`${options.queue} is not declared in DURABLE_EVENT_QUEUES`);
  }
  return startConsumer({
    isTransient: isTransientDatabaseError,
    ...options,
    decode: parseDomainEvent,
  });
}
