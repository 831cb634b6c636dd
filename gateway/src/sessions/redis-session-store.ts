/**
 * Sessions in Redis (REDIS_URL), so gateway replicas share them. Keys are `<prefix><sha256(id)>`
 * (a dump of Redis reveals no usable session id) with the TTL on the key; GETEX slides it on every
 * load in the same round trip. Commands fail fast while Redis is unreachable (no offline queue),
 * answered 503 instead of hanging the request, and the store reconnects in the background.
 */
import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { AppError, type Logger } from '@tix/kit';
import type { SessionData, SessionStore } from './session-store.js';

export interface RedisSessionStoreOptions {
  url: string;
  ttlSeconds: number;
  logger: Logger;
  keyPrefix?: string;
  /** How long start-up waits for the first connection before going on without it (ms). */
  startupWaitMs?: number;
}

const UNAVAILABLE_MESSAGE = 'Session store unavailable';

/** Creates the store and starts connecting (see the note on start-up below). */
export async function createRedisSessionStore(options: RedisSessionStoreOptions): Promise<SessionStore> {
  const prefix = options.keyPrefix ?? 'tix:session:';
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2_000,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000),
    },
  });
  let lastErrorLogged = 0;
  client.on('error', (error: Error) => {
    // A reconnect loop emits an error per attempt; one line every few seconds is enough.
    if (Date.now() - lastErrorLogged > 5_000) {
      lastErrorLogged = Date.now();
      options.logger.warn({ err: error }, 'session store: redis error');
    }
  });
  // Redis being down must not stop the gateway (the API host does not need it): wait briefly for
  // the first connection, then keep reconnecting in the background while session calls answer 503.
  const firstConnection = client.connect().then(
    () => true,
    () => false,
  );
  const connected = await Promise.race([
    firstConnection,
    new Promise<false>((resolve) => setTimeout(() => resolve(false), options.startupWaitMs ?? 2_000).unref()),
  ]);
  if (!connected)
    options.logger.warn('session store: redis not reachable yet; session routes answer 503 until it is');

  const keyOf = (id: string) => prefix + createHash('sha256').update(id).digest('hex');
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw AppError.unavailable(UNAVAILABLE_MESSAGE, error);
    }
  };

  return {
    load: (id) =>
      guarded(async () => {
        const raw = await client.getEx(keyOf(id), { type: 'EX', value: options.ttlSeconds });
        if (raw === null) return null;
        try {
          return JSON.parse(String(raw)) as SessionData;
        } catch {
          return null;
        }
      }),
    save: (id, data) =>
      guarded(async () => {
        await client.set(keyOf(id), JSON.stringify(data), {
          expiration: { type: 'EX', value: options.ttlSeconds },
        });
      }),
    destroy: (id) =>
      guarded(async () => {
        await client.del(keyOf(id));
      }),
    async close() {
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}
