/**
 * The sliding log in Redis, shared by every gateway replica: one sorted set per bucket (member per
 * hit, score = hit time in microseconds of the Redis server's clock, so replicas with skewed clocks
 * agree) and ONE Lua script per decision (prune, count, add when allowed, PEXPIRE), so concurrent
 * requests can never overshoot the limit. A peek reads the same figures and writes nothing.
 */
import { randomBytes } from 'node:crypto';
import { RedisScript, type LimitsRedisClient } from './redis-backend.js';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.js';

export const RATE_LIMIT_KEY_PREFIX = 'tix:rl:';

// KEYS[1] bucket; ARGV limit, window (ms), unique member suffix.
// Returns { allowed 0|1, remaining, oldest hit (us), now (us) }.
const TAKE = new RedisScript(`
local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window_ms * 1000)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  count = count + 1
  allowed = 1
end
if count > 0 then redis.call('PEXPIRE', KEYS[1], window_ms) end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
return { allowed, limit - count, tonumber(oldest or now), now }
`);

// The same figures without counting or pruning: hits at or before now - window no longer count
// (scores are whole microseconds, so the first that does is one later; a number, as string
// concatenation would print it in Lua's 14 significant digits).
// KEYS[1] bucket; ARGV window (ms). Returns { count, oldest counted hit (us), now (us) }.
const PEEK = new RedisScript(`
local window_ms = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local first = now - window_ms * 1000 + 1
local count = redis.call('ZCOUNT', KEYS[1], first, '+inf')
local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], first, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]
return { count, tonumber(oldest or now), now }
`);

/** Creates the Redis store on `client` (its keys: `tix:rl:<bucket>`). */
export function createRedisRateLimitStore(
  client: LimitsRedisClient,
  keyPrefix = RATE_LIMIT_KEY_PREFIX,
): RateLimitStore {
  // Members must be unique even for two hits in the same microsecond: process id + counter.
  const processTag = randomBytes(6).toString('base64url');
  let counter = 0;
  return {
    async take(bucket, limit, windowMs): Promise<RateLimitDecision> {
      counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
      const [allowed, remaining, oldestUs, nowUs] = await TAKE.run<[number, number, number, number]>(
        client,
        [keyPrefix + bucket],
        [String(limit), String(windowMs), `${processTag}${counter}`],
      );
      return {
        allowed: allowed === 1,
        limit,
        remaining: Math.max(0, remaining),
        resetAtMs: oldestUs / 1000 + windowMs,
        nowMs: nowUs / 1000,
      };
    },
    async peek(bucket, limit, windowMs): Promise<RateLimitDecision> {
      const [count, oldestUs, nowUs] = await PEEK.run<[number, number, number]>(
        client,
        [keyPrefix + bucket],
        [String(windowMs)],
      );
      return {
        allowed: count < limit,
        limit,
        remaining: Math.max(0, limit - count),
        resetAtMs: oldestUs / 1000 + windowMs,
        nowMs: nowUs / 1000,
      };
    },
    close: () => Promise.resolve(),
  };
}
