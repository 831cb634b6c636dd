/**
 * The usual consumer of a service: one durable queue of domain events (durableQueue, one the fleet
 * map gives the service, so producers keep its events even before it first runs), each message
 * decoded with parseDomainEvent (a malformed one is dead-lettered at once) and acknowledged only
 * after `handle` committed its work. Failures that may pass (isTransientDatabaseError by default)
 * retry the message in place; anything else dead-letters it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { DomainEvent } from '@tix/protos';
import { isTransientDatabaseError } from '../db/pool.js';
import { startConsumer, type BrokerOptions, type ConsumeOptions, type Consumer } from './broker.js';
import { parseDomainEvent } from './parse-event.js';
import { DURABLE_EVENT_QUEUES, type DurableQueue } from './topology.js';

export interface DomainEventConsumerOptions
  extends BrokerOptions, Omit<ConsumeOptions<DomainEvent>, 'queue' | 'decode'> {
  /** The service's queue: durableQueue(name, bindings) with a queue of its FLEET entry. */
  queue: DurableQueue;
}

/** Starts consuming (connecting in the background, retrying until it can). */
export function startDomainEventConsumer(options: DomainEventConsumerOptions): Consumer {
  // The topology declares the fleet map's queues: one declared otherwise would never be created.
  if (!DURABLE_EVENT_QUEUES.some((queue) => isDeepStrictEqual(queue, options.queue))) {
    throw new Error(`${options.queue.name} is not a queue of the fleet map (FLEET queues)`);
  }
  return startConsumer({
    isTransient: isTransientDatabaseError,
    ...options,
    queue: options.queue.name,
    decode: parseDomainEvent,
  });
}
