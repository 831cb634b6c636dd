/**
 * The consumer of `webhooks.events` (declared by kit assertEventTopology exactly as producers
 * declare it: quorum, delivery limit 5, dead letters to `webhooks.events.dlq`). Manual acks: a
 * message is acknowledged only after `process` has committed what it means (fan-out.ts), so a crash
 * or a lost channel at any point redelivers it, and the event id makes the second time a no-op.
 * - A message that is not a well-formed DomainEvent, or that the database refuses as data, is
 *   rejected without requeue: it goes to the dead-letter queue and the rest keep flowing.
 * - A transient failure (database down) keeps the message and retries it with backoff; with every
 *   prefetch slot busy the broker simply stops sending more until the database is back.
 * - The connection is re-established with backoff whenever it drops (broker restart); messages
 *   unacknowledged on the old channel are redelivered by the broker.
 */
import amqp from 'amqplib';
import { assertEventTopology, type Logger } from '@tix/kit';
import { DURABLE_EVENT_QUEUES, type DomainEvent } from '@tix/protos';
import { isTransientDatabaseError } from '../db.js';
import { parseDomainEvent } from './parse-event.js';

/** The durable queue this service consumes (protos DURABLE_EVENT_QUEUES). */
export const WEBHOOK_EVENTS_QUEUE = 'webhooks.events';

if (!DURABLE_EVENT_QUEUES.some((queue) => queue.name === WEBHOOK_EVENTS_QUEUE)) {
  throw new Error(`${WEBHOOK_EVENTS_QUEUE} is not declared in DURABLE_EVENT_QUEUES`);
}

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

export interface EventConsumer {
  /** True while consuming. */
  isConsuming(): boolean;
  /** Stops taking messages, lets those in progress finish (up to graceMs), then closes. */
  stop(graceMs: number): Promise<void>;
}

const MAX_BACKOFF_MS = 5_000;

/** Starts consuming (connecting in the background, retrying until it can). */
export function startEventConsumer(options: EventConsumerOptions): EventConsumer {
  const { logger } = options;
  const isTransient = options.isTransient ?? isTransientDatabaseError;
  let stopping = false;
  let connection: amqp.ChannelModel | undefined;
  let channel: amqp.Channel | undefined;
  let consumerTag: string | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let backoffMs = 100;
  const inFlight = new Set<Promise<void>>();

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const scheduleReconnect = () => {
    if (stopping || reconnectTimer) return;
    const delay = backoffMs;
    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect();
    }, delay);
  };

  /** Settles one message on the channel it came from (a closed channel means the broker redelivers it). */
  const settle = (on: amqp.Channel, message: amqp.ConsumeMessage, verdict: 'ack' | 'reject') => {
    try {
      if (verdict === 'ack') on.ack(message);
      else on.nack(message, false, false);
    } catch (error) {
      logger.debug({ err: error }, 'could not settle a message on a closed channel; it will be redelivered');
    }
  };

  async function handle(on: amqp.Channel, message: amqp.ConsumeMessage): Promise<void> {
    const event = parseDomainEvent(message.content);
    if (!event) {
      logger.warn(
        { message_id: message.properties.messageId, routing_key: message.fields.routingKey },
        'unreadable event message; sent to the dead-letter queue',
      );
      settle(on, message, 'reject');
      return;
    }
    let retryMs = 100;
    for (;;) {
      try {
        await options.process(event);
        settle(on, message, 'ack');
        return;
      } catch (error) {
        if (!isTransient(error)) {
          logger.error(
            { err: error, event_id: event.id, event_type: event.type },
            'event refused by the database; sent to the dead-letter queue',
          );
          settle(on, message, 'reject');
          return;
        }
        // Stopping or channel gone: leave it unacknowledged; the broker redelivers it.
        if (stopping || channel !== on) return;
        logger.warn({ err: error, event_id: event.id }, 'cannot record event yet; retrying');
        await sleep(retryMs);
        retryMs = Math.min(retryMs * 2, MAX_BACKOFF_MS);
      }
    }
  }

  async function connect(): Promise<void> {
    if (stopping) return;
    let model: amqp.ChannelModel | undefined;
    try {
      model = await amqp.connect(options.amqpUrl);
      const opened = await model.createChannel();
      await assertEventTopology(opened);
      await opened.prefetch(options.prefetch);
      model.on('error', (error: Error) => logger.warn({ err: error }, 'broker connection error'));
      model.on('close', () => {
        if (connection === model) {
          connection = undefined;
          channel = undefined;
          consumerTag = undefined;
          if (!stopping) logger.warn('broker connection closed; reconnecting');
          scheduleReconnect();
        }
      });
      opened.on('error', (error: Error) => logger.warn({ err: error }, 'broker channel error'));
      opened.on('close', () => {
        if (channel === opened) {
          channel = undefined;
          consumerTag = undefined;
          // A channel closed under a live connection (e.g. by the broker) is reopened by reconnecting.
          void model?.close().catch(() => undefined);
        }
      });
      if (stopping) {
        await model.close();
        return;
      }
      connection = model;
      channel = opened;
      const { consumerTag: tag } = await opened.consume(
        WEBHOOK_EVENTS_QUEUE,
        (message) => {
          if (!message) return; // cancelled by the broker (queue deleted); the close handler reconnects
          const work = handle(opened, message).catch((error: unknown) =>
            logger.error({ err: error }, 'event handling failed'),
          );
          inFlight.add(work);
          void work.finally(() => inFlight.delete(work));
        },
        { noAck: false },
      );
      consumerTag = tag;
      backoffMs = 100;
      logger.info({ queue: WEBHOOK_EVENTS_QUEUE, prefetch: options.prefetch }, 'consuming events');
    } catch (error) {
      logger.warn({ err: error }, 'cannot consume events yet; retrying');
      if (connection === model) {
        connection = undefined;
        channel = undefined;
        consumerTag = undefined;
      }
      await model?.close().catch(() => undefined);
      scheduleReconnect();
    }
  }

  void connect();

  return {
    isConsuming: () => consumerTag !== undefined,
    async stop(graceMs) {
      stopping = true;
      clearTimeout(reconnectTimer);
      const open = channel;
      if (open && consumerTag) await open.cancel(consumerTag).catch(() => undefined);
      consumerTag = undefined;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...inFlight]),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
      const model = connection;
      connection = undefined;
      channel = undefined;
      await model?.close().catch(() => undefined);
    },
  };
}
