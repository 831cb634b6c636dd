/**
 * Hears `api_key.revoked` events so cached API key authentications die with the key. Each gateway
 * replica binds its own exclusive, auto-delete queue to EVENTS_EXCHANGE (every replica must hear
 * every revocation). A broker outage never stops the gateway: it logs a warning, reports itself
 * disconnected (the authenticator then shortens its cache) and reconnects in the background.
 */
import amqp from 'amqplib';
import type { Logger } from '@tix/kit';
import { EVENTS_EXCHANGE } from '@tix/protos';

export const API_KEY_REVOKED = 'api_key.revoked';

export interface RevocationListener {
  isConnected(): boolean;
  stop(): Promise<void>;
}

export interface RevocationListenerOptions {
  amqpUrl: string;
  logger: Logger;
  /** Called with the revoked key's id. */
  onRevoked(keyId: number): void;
  /** Called on every change between connected and disconnected. */
  onConnectionChange(connected: boolean): void;
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/** The revoked key id in an `api_key.revoked` message body, or undefined when it names none. */
export function revokedKeyId(content: Buffer): number | undefined {
  try {
    const event = JSON.parse(content.toString('utf8')) as { type?: unknown; data?: { id?: unknown } };
    if (event.type !== API_KEY_REVOKED) return undefined;
    const id = event.data?.id;
    return typeof id === 'number' && Number.isInteger(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Starts listening (in the background); resolves at once, connected or not. */
export function startRevocationListener(options: RevocationListenerOptions): RevocationListener {
  const { logger } = options;
  const initialDelay = options.initialRetryDelayMs ?? 500;
  const maxDelay = options.maxRetryDelayMs ?? 10_000;
  let model: amqp.ChannelModel | undefined;
  let connected = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = initialDelay;
  let outageLogged = false;

  const setConnected = (value: boolean) => {
    if (connected === value) return;
    connected = value;
    options.onConnectionChange(value);
  };

  const scheduleRetry = () => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delay);
    retryTimer.unref();
    delay = Math.min(delay * 2, maxDelay);
  };

  async function connect(): Promise<void> {
    if (stopped) return;
    let current: amqp.ChannelModel | undefined;
    try {
      current = await amqp.connect(options.amqpUrl);
      model = current;
      current.on('error', (error: Error) => logger.warn({ err: error }, 'revocation feed: broker error'));
      current.on('close', () => {
        if (model === current) model = undefined;
        const wasConnected = connected;
        setConnected(false);
        if (stopped) return;
        if (wasConnected) {
          logger.warn(
            'revocation feed: broker connection lost; API key cache TTL shortened until it is back',
          );
          outageLogged = true;
        }
        scheduleRetry();
      });
      const channel = await current.createChannel();
      channel.on('error', (error: Error) => logger.warn({ err: error }, 'revocation feed: channel error'));
      // A dead channel on a live connection would leave us deaf while looking connected.
      channel.on('close', () => {
        if (!stopped) void current?.close().catch(() => undefined);
      });
      await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      await channel.bindQueue(queue, EVENTS_EXCHANGE, API_KEY_REVOKED);
      await channel.consume(
        queue,
        (message) => {
          if (!message) return;
          const keyId = revokedKeyId(message.content);
          if (keyId === undefined) {
            logger.warn(
              { routing_key: message.fields.routingKey },
              'revocation feed: ignored malformed event',
            );
            return;
          }
          options.onRevoked(keyId);
          logger.info({ key_id: keyId }, 'revocation feed: evicted revoked API key');
        },
        { noAck: true },
      );
      if (stopped) {
        await current.close().catch(() => undefined);
        return;
      }
      delay = initialDelay;
      logger.info(outageLogged ? 'revocation feed: connected again' : 'revocation feed: connected');
      outageLogged = false;
      setConnected(true);
    } catch (error) {
      if (current) await current.close().catch(() => undefined);
      if (!outageLogged) {
        logger.warn({ err: error }, 'revocation feed: cannot reach the broker; retrying in the background');
        outageLogged = true;
      }
      setConnected(false);
      scheduleRetry();
    }
  }

  void connect();

  return {
    isConnected: () => connected,
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      const current = model;
      model = undefined;
      await current?.close().catch(() => undefined);
      setConnected(false);
    },
  };
}
