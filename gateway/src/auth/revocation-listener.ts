/**
 * Hears `api_key.revoked` events so cached API key authentications die with the key, and
 * `user.updated` events that end a user's sessions (deactivated, role or password changed) so the
 * user's sessions and cached keys end on every gateway at once. Each gateway
 * replica consumes its own private queue (kit privateQueue: exclusive, auto-delete, bound to
 * EVENTS_EXCHANGE), because every replica must hear every revocation. A broker outage never stops
 * the gateway: the kit's broker layer logs it and reconnects in the background, and meanwhile the
 * feed reports itself disconnected (the authenticator then shortens its cache).
 */
import { assertEventsExchange, privateQueue, RECONNECT_BACKOFF, startConsumer, type Logger } from '@tix/kit';

export const API_KEY_REVOKED = 'api_key.revoked';
export const USER_UPDATED = 'user.updated';

/** A well-formed event that revokes nothing (acknowledged, not rejected as unreadable). */
const NOTHING_TO_REVOKE = { kind: 'nothing' } as const;

/** What the feed tells the gateway. */
export type Revocation =
  | { kind: 'api_key'; keyId: number }
  /** The user's sessions signed in before `endedAt` end (a session started since then is kept). */
  | { kind: 'user'; userId: number; endedAt: Date };

export interface RevocationListener {
  isConnected(): boolean;
  stop(): Promise<void>;
}

export interface RevocationListenerOptions {
  amqpUrl: string;
  logger: Logger;
  /** Called for a revoked key, and for a user whose sessions and keys must be forgotten. */
  onRevoked(revocation: Revocation): Promise<void> | void;
  /** Called on every change between connected and disconnected. */
  onConnectionChange(connected: boolean): void;
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * What a message body revokes: the key of an `api_key.revoked`, the user of a `user.updated` that
 * ended their sessions, nothing for a `user.updated` that did not; undefined for an unreadable body.
 */
export function revocationOf(content: Buffer): Revocation | typeof NOTHING_TO_REVOKE | undefined {
  try {
    const event = JSON.parse(content.toString('utf8')) as {
      type?: unknown;
      occurred_at?: unknown;
      data?: { id?: unknown; sessions_ended?: unknown };
    };
    const id = event.data?.id;
    if (typeof id !== 'number' || !Number.isInteger(id)) return undefined;
    if (event.type === API_KEY_REVOKED) return { kind: 'api_key', keyId: id };
    if (event.type !== USER_UPDATED) return undefined;
    // A change that ends no session (a new name) is heard, and needs nothing.
    if (event.data?.sessions_ended !== true) return NOTHING_TO_REVOKE;
    const endedAt = new Date(typeof event.occurred_at === 'string' ? event.occurred_at : Number.NaN);
    return Number.isNaN(endedAt.getTime()) ? undefined : { kind: 'user', userId: id, endedAt };
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
    queue: privateQueue(API_KEY_REVOKED, USER_UPDATED),
    prefetch: 100,
    decode: revocationOf,
    handle: async (revocation) => {
      if (revocation.kind === 'nothing') return;
      await options.onRevoked(revocation);
      if (revocation.kind === 'api_key') {
        logger.info({ key_id: revocation.keyId }, 'revocation feed: evicted revoked API key');
      } else {
        logger.info(
          { user_id: revocation.userId },
          "revocation feed: ended the user's sessions and cached keys",
        );
      }
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
