/**
 * The Redis side of the limits: scripts on the gateway's shared client (redis/connect-redis.ts) and
 * the fail-open switch. Every limits call goes to Redis while it answers; when it does not (down, or
 * slower than COMMAND_TIMEOUT_MS) the call is served by the in-process store instead, a warning is
 * logged once per outage, and /readyz reports `degraded_in_memory` until Redis answers again.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '@tix/kit';
import type { RedisClient } from '../redis/connect-redis.js';

/** The client the limits stores run on: the gateway's one Redis client. */
export type LimitsRedisClient = RedisClient;

/** Redis taking longer than this is treated as down for that call. */
const COMMAND_TIMEOUT_MS = 500;

/** A Lua script run by EVALSHA (loaded on first NOSCRIPT), so only its hash crosses the wire. */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run<T>(client: LimitsRedisClient, keys: string[], args: string[]): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await client.sendCommand<T>(['EVALSHA', this.sha, ...tail], { timeout: COMMAND_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand<T>(['EVAL', this.source, ...tail], { timeout: COMMAND_TIMEOUT_MS });
    }
  }
}

/** Options for one-off commands (same timeout as scripts). */
export const COMMAND_OPTIONS = { timeout: COMMAND_TIMEOUT_MS } as const;

export type LimitsBackend = 'redis' | 'degraded_in_memory' | 'in_memory' | 'disabled';

/** Runs calls on Redis, falling back to the in-process store while Redis fails (see file header). */
export class RedisFallback {
  private degraded = false;

  constructor(
    private readonly client: LimitsRedisClient,
    private readonly logger: Logger,
  ) {}

  get backend(): LimitsBackend {
    return this.degraded || !this.client.isReady ? 'degraded_in_memory' : 'redis';
  }

  async run<T>(onRedis: (client: LimitsRedisClient) => Promise<T>, inMemory: () => Promise<T>): Promise<T> {
    if (!this.client.isReady) {
      this.markDown(new Error('redis connection not ready'));
      return inMemory();
    }
    let result: T;
    try {
      result = await onRedis(this.client);
    } catch (error) {
      this.markDown(error);
      return inMemory();
    }
    if (this.degraded) {
      this.degraded = false;
      this.logger.info('limits: redis answers again; limits are shared by every gateway replica again');
    }
    return result;
  }

  /**
   * The store whose every call of `calls` runs as `run` does: on `onRedis`, else on `inMemory`. Its
   * close does nothing: the Redis client and the in-process stores are closed by their owners.
   */
  store<T extends { close(): Promise<void> }>(
    onRedis: T,
    inMemory: T,
    calls: readonly Exclude<keyof T, 'close'>[],
  ): T {
    const store: Record<PropertyKey, unknown> = { close: () => Promise.resolve() };
    for (const name of calls) {
      const viaRedis = onRedis[name] as (...args: unknown[]) => Promise<unknown>;
      const viaMemory = inMemory[name] as (...args: unknown[]) => Promise<unknown>;
      store[name] = (...args: unknown[]) =>
        this.run(
          () => viaRedis.apply(onRedis, args),
          () => viaMemory.apply(inMemory, args),
        );
    }
    return store as T;
  }

  private markDown(error: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(
      { err: error },
      'limits: redis unavailable; rate limits, idempotency and quotas fall back to this process (fail open)',
    );
  }
}
