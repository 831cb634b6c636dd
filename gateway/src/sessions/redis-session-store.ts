/**
 * Sessions in Redis (REDIS_URL), so gateway replicas share them. Keys are `<prefix><sha256(id)>`
 * (a dump of Redis reveals no usable session id) with the TTL on the key; GETEX slides it on every
 * load in the same round trip. A signed-in session's key is also listed in its user's set
 * (`<prefix>user:<id>`), so that all of a user's sessions can be ended at once; the set is written
 * at sign-in only, never on the request path, and members whose session expired are dropped when
 * the set is read. The client is the gateway's shared one (redis/connect-redis.ts):
 * commands fail fast while Redis is unreachable, answered 503 instead of hanging the request, and
 * it reconnects in the background.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@tix/kit';
import type { RedisClient } from '../redis/connect-redis.js';
import { startedBefore, type SessionData, type SessionStore } from './session-store.js';

export interface RedisSessionStoreOptions {
  /** The gateway's Redis client; its owner closes it (close() here leaves it open). */
  client: RedisClient;
  ttlSeconds: number;
  keyPrefix?: string;
}

const UNAVAILABLE_MESSAGE = 'Session store unavailable';

function parseSession(raw: string): SessionData | null {
  try {
    return JSON.parse(raw) as SessionData;
  } catch {
    return null;
  }
}

export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client } = options;
  const prefix = options.keyPrefix ?? 'tix:session:';
  const keyOf = (id: string) => prefix + createHash('sha256').update(id).digest('hex');
  const userSetOf = (userId: number) => `${prefix}user:${userId}`;
  /** A user signs in a few times a day: past this many members the set drops its expired ones. */
  const pruneAbove = 50;
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
        return raw === null ? null : parseSession(String(raw));
      }),
    save: (id, data) =>
      guarded(async () => {
        const key = keyOf(id);
        await client.set(key, JSON.stringify(data), {
          expiration: { type: 'EX', value: options.ttlSeconds },
        });
        if (data.user === undefined) return;
        const set = userSetOf(data.user.id);
        if ((await client.sAdd(set, key)) === 1 && (await client.sCard(set)) > pruneAbove) {
          const expired: string[] = [];
          for (const member of await client.sMembers(set)) {
            if ((await client.exists(member)) === 0) expired.push(member);
          }
          if (expired.length > 0) await client.sRem(set, expired);
        }
      }),
    destroy: (id) =>
      guarded(async () => {
        await client.del(keyOf(id));
      }),
    destroyUserSessions: (userId, createdBefore) =>
      guarded(async () => {
        const set = userSetOf(userId);
        let ended = 0;
        for (const key of await client.sMembers(set)) {
          const raw = await client.get(key);
          const data = raw === null ? null : parseSession(String(raw));
          if (data !== null && !startedBefore(data, createdBefore)) continue;
          ended += Number(await client.del(key));
          await client.sRem(set, key);
        }
        return ended;
      }),
    // The client is shared with the limits; the gateway closes it once both are done.
    close: () => Promise.resolve(),
  };
}
