/**
 * Hears `api_key.revoked` events so cached API key authentications die with the key. Each gateway
 * replica consumes its own private queue (kit privateQueue: exclusive, auto-delete, bound to
 * EVENTS_EXCHANGE), because every replica must hear every revocation. A broker outage never stops
 * the gateway: the kit's broker layer logs it and reconnects in the background, and meanwhile the
 * feed reports itself disconnected (the authenticator then shortens its cache).
 */
import { assertEventsExchange, privateQueue, RECONNECT_BACKOFF, startConsumer, type Logger } from '@tix/kit';

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

/** Starts listening (in the background); returns at once, connected or not. */
export function startRevocationListener(options: RevocationListenerOptions): RevocationListener {
  const { logger } = options;
  let stopped = false;
  // "Connected" means consuming: a live connection whose channel died would hear nothing.
  const consumer = startConsumer({
    url: options.amqpUrl,
    logger,
    name: 'revocation feed',
    // The gateway publishes nothing and owns no durable queue: the exchange is all it relies on.
    topology: assertEventsExchange,
    reconnect: {
      initialMs: options.initialRetryDelayMs ?? RECONNECT_BACKOFF.initialMs,
      maxMs: options.maxRetryDelayMs ?? RECONNECT_BACKOFF.maxMs,
    },
    queue: privateQueue(API_KEY_REVOKED),
    prefetch: 100,
    decode: revokedKeyId,
    handle: (keyId) => {
      options.onRevoked(keyId);
      logger.info({ key_id: keyId }, 'revocation feed: evicted revoked API key');
    },
    onConsumingChange: (consuming) => {
      if (!consuming && !stopped)
        logger.warn('revocation feed: not hearing revocations; API key cache TTL shortened until it is back');
      options.onConnectionChange(consuming);
    },
  });
  return {
    isConnected: () => consumer.isConsuming(),
    async stop() {
      stopped = true;
      await consumer.stop(0);
    },
  };
}
