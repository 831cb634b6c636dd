/**
 * The fleet's one RabbitMQ connection layer. A Broker is one AMQP connection, opened in the
 * background and opened again with capped, jittered backoff (backoff.ts) whenever it drops; every
 * publisher and consumer made from it follows it across reconnects:
 *
 *   const broker = connectBroker({ url: config.amqpUrl, logger, name: 'activity consumer' });
 *   const consumer = broker.consume({
 *     queue: 'activity.events',
 *     prefetch: 32,
 *     decode: parseDomainEvent,
 *     handle: (event) => recordActivity(event),
 *     isTransient: isTransientDatabaseError,
 *   });
 *   ...
 *   await consumer.stop(graceMs); // or broker.close(graceMs), which stops every consumer first
 *   await broker.close();
 *
 * (startConsumer({ url, logger, name, queue, ... }) is the two in one: a consumer whose stop also
 * closes its connection.)
 *
 * - publisher(): a confirm channel, opened on first use and again after the broker closed it (a
 *   publish to a missing exchange closes it); publish() resolves once every message is confirmed.
 * - consume(): manual acks and a prefetch; a message is acked only after its handler resolved, so
 *   a crash or a lost channel at any point has the broker redeliver it.
 * - The topology (exchanges, durable queues) is declared on every channel before it is used, so a
 *   queue deleted under a running consumer is declared again when it resubscribes.
 * - Every connection and channel logs its 'error' events: a broker or channel error is an outage to
 *   ride out, never an unhandled 'error' event that would crash the process.
 *
 * One Broker per role (the relay publishes on its own, each consumer consumes on its own), as
 * RabbitMQ advises: when it throttles a publishing connection, consumers on others keep going.
 */
import amqp, {
  type Channel,
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  type Options,
} from 'amqplib';
import { EVENTS_EXCHANGE } from '@tix/protos';
import { Backoff, RECONNECT_BACKOFF, type BackoffPolicy } from '../backoff.js';
import type { Logger } from '../logger.js';
import { assertEventTopology } from './topology.js';

export interface BrokerOptions {
  /** AMQP_URL. */
  url: string;
  logger: Logger;
  /** Who connects ('outbox relay'): prefixes its log lines and names the connection in RabbitMQ. */
  name: string;
  /**
   * Declares the exchanges and queues this connection relies on; run on every channel before it is
   * used. Default: the fleet's event topology (assertEventTopology).
   */
  topology?: (channel: Channel) => Promise<void>;
  /** Delays between reconnects, also between attempts to reopen a consumer's channel. */
  reconnect?: BackoffPolicy;
  /** Called on every change between connected and not. */
  onConnectionChange?: (connected: boolean) => void;
}

export interface Broker {
  /** True while the connection is open. */
  isConnected(): boolean;
  /** A publisher on its own confirm channel. */
  publisher(): Publisher;
  /** Starts consuming now, or as soon as the broker is reachable; the consumer follows reconnects. */
  consume<T>(options: ConsumeOptions<T>): Consumer;
  /** Stops every consumer (their handlers get up to graceMs to finish), then closes for good. */
  close(graceMs?: number): Promise<void>;
}

export interface OutgoingMessage {
  /** Default: EVENTS_EXCHANGE. */
  exchange?: string;
  routingKey: string;
  content: Buffer;
  properties?: Options.Publish;
}

export interface Publisher {
  /** Opens the confirm channel now (waiting for a connection attempt in progress). */
  ready(): Promise<void>;
  /**
   * Publishes the messages and resolves once the broker confirmed every one. Rejects when the broker
   * is unreachable, refuses a message, or the channel closes first: then none counts as published.
   */
  publish(messages: readonly OutgoingMessage[]): Promise<void>;
}

/** A queue of this connection alone; see privateQueue. */
export interface PrivateQueue {
  privateBindings: readonly string[];
}

/**
 * A server-named, exclusive queue that dies with the connection, bound to EVENTS_EXCHANGE by
 * `routingKeys`: every replica hears every matching event, and nothing piles up while it is away.
 */
export function privateQueue(...routingKeys: string[]): PrivateQueue {
  return { privateBindings: routingKeys };
}

export interface ConsumeOptions<T> {
  /** A durable queue the topology declares, or privateQueue(...routingKeys). */
  queue: string | PrivateQueue;
  /** Messages delivered and not yet acknowledged, at most. */
  prefetch: number;
  /**
   * Reads a message body; null or undefined marks it unreadable, and it is rejected at once (to the
   * queue's dead-letter queue, if it has one) instead of being retried forever.
   */
  decode: (content: Buffer) => T | null | undefined;
  /** Does the work; the message is acknowledged only once this resolved. */
  handle: (message: T) => Promise<void> | void;
  /**
   * Classifies a handler failure: true retries the message in place with backoff (it keeps its
   * prefetch slot, so a database outage pauses consumption), false rejects it to the dead-letter
   * queue. Default: every failure is rejected.
   */
  isTransient?: (error: unknown) => boolean;
  /** Called on every change between consuming and not (connection or channel lost, back, stopped). */
  onConsumingChange?: (consuming: boolean) => void;
}

export interface Consumer {
  /** True while subscribed to its queue. */
  isConsuming(): boolean;
  /** Stops taking messages, lets those in progress finish (up to graceMs), then closes its channel. */
  stop(graceMs: number): Promise<void>;
}

/** publish() or ready() while there is no connection (nor an attempt in progress). */
export class BrokerUnavailableError extends Error {
  override name = 'BrokerUnavailableError';
}

/** How long one connection attempt may take (a silent network would otherwise hold it minutes). */
const CONNECT_TIMEOUT_MS = 10_000;

const ignore = () => undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the broker needs of a consumer: to be attached to each new connection, and stopped. */
interface ConsumerSession {
  attach(connection: ChannelModel): void;
  stop(graceMs: number): Promise<void>;
}

/** Connects in the background (retrying until it can) and returns at once. */
export function connectBroker(options: BrokerOptions): Broker {
  const { logger, name } = options;
  const topology = options.topology ?? assertEventTopology;
  const policy = options.reconnect ?? RECONNECT_BACKOFF;
  const reconnectBackoff = new Backoff(policy);
  const consumers = new Set<ConsumerSession>();
  let connection: ChannelModel | undefined;
  let connecting: Promise<void> | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  // From the first failure until the next connection: one warning per outage, not one per attempt.
  let inOutage = false;

  const setConnection = (opened: ChannelModel | undefined) => {
    const changed = (connection === undefined) !== (opened === undefined);
    connection = opened;
    if (!changed) return;
    try {
      options.onConnectionChange?.(opened !== undefined);
    } catch (error) {
      logger.error({ err: error }, `${name}: onConnectionChange failed`);
    }
  };

  const connect = () => {
    connecting = attemptConnection().finally(() => (connecting = undefined));
  };

  const scheduleReconnect = () => {
    if (closing || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect();
    }, reconnectBackoff.next());
    // Reconnecting alone must not keep a process alive that has nothing else to do.
    reconnectTimer.unref();
  };

  async function attemptConnection(): Promise<void> {
    let opened: ChannelModel;
    try {
      opened = await amqp.connect(options.url, {
        timeout: CONNECT_TIMEOUT_MS,
        clientProperties: { connection_name: name },
      });
    } catch (error) {
      if (inOutage) logger.debug({ err: error }, `${name}: broker still unreachable`);
      else logger.warn({ err: error }, `${name}: cannot reach the broker; retrying in the background`);
      inOutage = true;
      scheduleReconnect();
      return;
    }
    watchConnection(opened);
    if (closing) {
      await opened.close().catch(ignore);
      return;
    }
    setConnection(opened);
    reconnectBackoff.reset();
    logger.info(inOutage ? `${name}: connected to the broker again` : `${name}: connected to the broker`);
    inOutage = false;
    for (const consumer of consumers) consumer.attach(opened);
  }

  function watchConnection(opened: ChannelModel): void {
    // An 'error' is always followed by 'close', which logs it with the loss: one warning per outage.
    opened.on('error', (error: Error) => logger.debug({ err: error }, `${name}: broker connection error`));
    opened.on('blocked', (reason: string) =>
      logger.warn({ reason }, `${name}: the broker blocks this connection (resource alarm)`),
    );
    opened.on('unblocked', () => logger.info(`${name}: the broker unblocked this connection`));
    opened.on('close', (error?: Error) => {
      if (connection !== opened) return;
      setConnection(undefined);
      if (closing) return;
      logger.warn({ err: error }, `${name}: broker connection lost; reconnecting`);
      inOutage = true;
      scheduleReconnect();
    });
  }

  /** The open connection, after an attempt in progress; rejects when there is none. */
  async function liveConnection(): Promise<ChannelModel> {
    if (!connection && connecting) await connecting;
    if (connection) return connection;
    throw new BrokerUnavailableError(`${name}: not connected to the broker`);
  }

  /** A new channel whose errors are logged, with the topology declared on it. */
  async function openChannel<C extends Channel>(
    on: ChannelModel,
    create: (connection: ChannelModel) => Promise<C>,
  ): Promise<C> {
    const channel = await create(on);
    channel.on('error', (error: Error) => logger.warn({ err: error }, `${name}: broker channel error`));
    try {
      await topology(channel);
    } catch (error) {
      await channel.close().catch(ignore);
      throw error;
    }
    return channel;
  }

  function publisher(): Publisher {
    // The confirm channel of one connection; a new one when that channel or connection closed.
    let current: { on: ChannelModel; channel: Promise<ConfirmChannel> } | undefined;

    async function confirmChannel(): Promise<ConfirmChannel> {
      const on = await liveConnection();
      if (current?.on !== on) {
        const opening = { on, channel: openChannel(on, (model) => model.createConfirmChannel()) };
        current = opening;
        const forget = () => {
          if (current === opening) current = undefined;
        };
        void opening.channel.then((channel) => channel.on('close', forget), forget);
      }
      return current.channel;
    }

    return {
      async ready() {
        await confirmChannel();
      },
      async publish(messages) {
        const channel = await confirmChannel();
        for (const message of messages) {
          const exchange = message.exchange ?? EVENTS_EXCHANGE;
          channel.publish(exchange, message.routingKey, message.content, message.properties);
        }
        await channel.waitForConfirms();
      },
    };
  }

  function consume<T>(consumeOptions: ConsumeOptions<T>): Consumer {
    const { queue, prefetch, decode, handle } = consumeOptions;
    const isTransient = consumeOptions.isTransient ?? (() => false);
    const queueLabel = typeof queue === 'string' ? queue : `private (${queue.privateBindings.join(', ')})`;
    const reopenBackoff = new Backoff(policy);
    const inFlight = new Set<Promise<void>>();
    let active: { channel: Channel; consumerTag: string } | undefined;
    let opening = false;
    let reopenTimer: NodeJS.Timeout | undefined;
    let stopping: Promise<void> | undefined;
    let consuming = false;

    const setConsuming = (value: boolean) => {
      if (consuming === value) return;
      consuming = value;
      try {
        consumeOptions.onConsumingChange?.(value);
      } catch (error) {
        logger.error({ err: error }, `${name}: onConsumingChange failed`);
      }
    };

    /** Tries again later, on whatever connection is open by then (a new one is attached anyway). */
    const scheduleReopen = () => {
      if (stopping || reopenTimer) return;
      reopenTimer = setTimeout(() => {
        reopenTimer = undefined;
        if (connection) void subscribe(connection);
      }, reopenBackoff.next());
      reopenTimer.unref();
    };

    async function subscribe(on: ChannelModel): Promise<void> {
      if (stopping || active || opening) return;
      opening = true;
      let channel: Channel | undefined;
      try {
        const opened = await openChannel(on, (model) => model.createChannel());
        channel = opened;
        opened.on('close', () => onChannelClosed(opened));
        await opened.prefetch(prefetch);
        const queueName = typeof queue === 'string' ? queue : await declarePrivateQueue(opened, queue);
        const { consumerTag } = await opened.consume(queueName, (message) => onMessage(opened, message), {
          noAck: false,
        });
        if (stopping) {
          await opened.close().catch(ignore);
          return;
        }
        active = { channel: opened, consumerTag };
        reopenBackoff.reset();
        setConsuming(true);
        logger.info({ queue: queueLabel, prefetch }, `${name}: consuming`);
      } catch (error) {
        logger.warn({ err: error, queue: queueLabel }, `${name}: cannot consume yet; retrying`);
        await channel?.close().catch(ignore);
        scheduleReopen();
      } finally {
        opening = false;
      }
    }

    function onChannelClosed(channel: Channel): void {
      if (active?.channel !== channel) return;
      active = undefined;
      setConsuming(false);
      // Closed by the broker under a live connection (a channel error): open another. Closed with
      // its connection: the timer finds no connection, and the next one attaches this consumer.
      scheduleReopen();
    }

    function onMessage(channel: Channel, message: ConsumeMessage | null): void {
      if (message === null) {
        // Cancelled by the broker (its queue was deleted): a fresh channel declares it again.
        logger.warn({ queue: queueLabel }, `${name}: the broker cancelled the consumer; subscribing again`);
        void channel.close().catch(ignore);
        return;
      }
      const work = handleDelivery(channel, message);
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    }

    /** Settles on the channel it came from; on a closed channel it fails, and the broker redelivers. */
    const settle = (channel: Channel, message: ConsumeMessage, verdict: 'ack' | 'reject') => {
      try {
        if (verdict === 'ack') channel.ack(message);
        else channel.nack(message, false, false);
      } catch (error) {
        logger.debug({ err: error }, `${name}: channel closed before the message was settled; redelivered`);
      }
    };

    async function handleDelivery(channel: Channel, message: ConsumeMessage): Promise<void> {
      const context = {
        queue: queueLabel,
        message_id: message.properties.messageId as unknown,
        routing_key: message.fields.routingKey,
      };
      let decoded: T | null | undefined;
      try {
        decoded = decode(message.content);
      } catch {
        decoded = undefined;
      }
      if (decoded === null || decoded === undefined) {
        logger.warn(context, `${name}: unreadable message rejected (to the dead-letter queue, if any)`);
        settle(channel, message, 'reject');
        return;
      }
      const retry = new Backoff(policy);
      for (;;) {
        try {
          await handle(decoded);
          settle(channel, message, 'ack');
          return;
        } catch (error) {
          if (!isTransient(error)) {
            logger.error(
              { ...context, err: error },
              `${name}: message refused; rejected to the dead-letter queue`,
            );
            settle(channel, message, 'reject');
            return;
          }
          // Stopping, or the channel is gone: left unacknowledged, the broker redelivers it.
          if (stopping || active?.channel !== channel) return;
          logger.warn({ ...context, err: error }, `${name}: cannot handle the message yet; retrying`);
          await sleep(retry.next());
          if (stopping || active?.channel !== channel) return;
        }
      }
    }

    const session: ConsumerSession = {
      attach(on) {
        clearTimeout(reopenTimer);
        reopenTimer = undefined;
        void subscribe(on);
      },
      stop(graceMs) {
        stopping ??= (async () => {
          clearTimeout(reopenTimer);
          const subscribed = active;
          active = undefined;
          if (subscribed) await subscribed.channel.cancel(subscribed.consumerTag).catch(ignore);
          setConsuming(false);
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            Promise.all(inFlight),
            new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
          ]);
          clearTimeout(timer);
          // Whatever is still unacknowledged goes back to the queue with the channel.
          await subscribed?.channel.close().catch(ignore);
          consumers.delete(session);
        })();
        return stopping;
      },
    };
    consumers.add(session);
    if (connection) session.attach(connection);
    return { isConsuming: () => consuming, stop: (graceMs) => session.stop(graceMs) };
  }

  connect();

  return {
    isConnected: () => connection !== undefined,
    publisher,
    consume,
    close(graceMs = 0) {
      closing ??= (async () => {
        clearTimeout(reconnectTimer);
        await Promise.all([...consumers].map((consumer) => consumer.stop(graceMs)));
        // An attempt still in progress closes what it opens (it sees `closing`).
        const open = connection;
        setConnection(undefined);
        await open?.close().catch(ignore);
      })();
      return closing;
    },
  };
}

/**
 * One consumer on a connection of its own, stopped together: the usual shape of a service's event
 * consumer (`startConsumer({ url, logger, name, queue, prefetch, decode, handle })`).
 */
export function startConsumer<T>(options: BrokerOptions & ConsumeOptions<T>): Consumer {
  const broker = connectBroker(options);
  const consumer = broker.consume(options);
  return {
    isConsuming: () => consumer.isConsuming(),
    async stop(graceMs) {
      await consumer.stop(graceMs);
      await broker.close();
    },
  };
}

/** Declares this connection's own queue and binds it (see privateQueue). */
async function declarePrivateQueue(channel: Channel, queue: PrivateQueue): Promise<string> {
  const { queue: name } = await channel.assertQueue('', {
    exclusive: true,
    autoDelete: true,
    durable: false,
  });
  for (const routingKey of queue.privateBindings) await channel.bindQueue(name, EVENTS_EXCHANGE, routingKey);
  return name;
}
