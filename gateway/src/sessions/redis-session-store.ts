/**
 * Sessions in Redis (REDIS_URL), so gateway replicas share them. Keys are `<prefix><sha256(id)>`
 * (a dump of Redis reveals no usable session id) with the TTL on the key; GETEX slides it on every
 * load in the same round trip. The client is the gateway's shared one (redis/connect-redis.ts):
 * commands fail fast while Redis is unreachable, answered 503 instead of hanging the request, and
 * it reconnects in the background.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@tix/kit';
import type { RedisClient } from '../redis/connect-redis.js';
import type { SessionData, SessionStore } from './session-store.js';

export interface RedisSessionStoreOptions {
  /** The gateway's Redis client; its owner closes it (close() here leaves it open). */
  client: RedisClient;
  ttlSeconds: number;
  keyPrefix?: string;
}

const UNAVAILABLE_MESSAGE = 'Session store unavailable';

export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client } = options;
  const prefix = options.keyPrefix ?? 'tix:session:';
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
    // The client is shared with the limits; the gateway closes it once both are done.
    close: () => Promise.resolve(),
  };
}
