/**
 * 402 quotas for API key callers, off by default (spec Errors 402; docs/decisions.md):
 * - QUOTA_FREE_ALLOWANCE: calls a key owner (user) may make in all before a plan is needed;
 * - QUOTA_MONTHLY_LIMIT: calls a key owner may make per calendar month (UTC).
 * Every /v1 call that passed authentication and the rate limit counts, whatever its outcome; a
 * refused call does not. Counting and checking are one atomic step per call (Redis script, or the
 * in-memory map). The refusal is 402 with scalar `validation_errors`:
 * `{ quota, limit, used, reset_at }` (reset_at: the next month's start, or null for the allowance).
 */
import type { RequestHandler } from 'express';
import { AppError } from '@tix/kit';
import { RedisScript, type LimitsRedisClient } from './redis-backend.js';

export const QUOTA_KEY_PREFIX = 'tix:quota:';
export const FREE_ALLOWANCE_EXHAUSTED_MESSAGE = 'Free API allowance exhausted';
export const MONTHLY_LIMIT_REACHED_MESSAGE = 'Monthly API call limit reached';

export interface QuotaLimits {
  freeAllowance: number | null;
  monthlyLimit: number | null;
}

export type QuotaDecision =
  { allowed: true } | { allowed: false; quota: 'free_allowance' | 'monthly'; limit: number; used: number };

export interface QuotaStore {
  /** Counts one call of `userId` in `month` (YYYY-MM) unless a quota is already used up. */
  take(userId: number, month: string, monthEndMs: number, limits: QuotaLimits): Promise<QuotaDecision>;
  close(): Promise<void>;
}

/** "2026-11" and the start of the next month (ms) for a time. */
export function calendarMonth(timeMs: number): { month: string; nextMonthStartMs: number } {
  const date = new Date(timeMs);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    month: `${year}-${String(month + 1).padStart(2, '0')}`,
    nextMonthStartMs: Date.UTC(year, month + 1, 1),
  };
}

function decide(free: number, monthly: number, limits: QuotaLimits): QuotaDecision {
  if (limits.freeAllowance !== null && free >= limits.freeAllowance) {
    return { allowed: false, quota: 'free_allowance', limit: limits.freeAllowance, used: free };
  }
  if (limits.monthlyLimit !== null && monthly >= limits.monthlyLimit) {
    return { allowed: false, quota: 'monthly', limit: limits.monthlyLimit, used: monthly };
  }
  return { allowed: true };
}

/** The in-memory store (counts are lost on restart: a single development gateway only). */
export function createMemoryQuotaStore(): QuotaStore {
  const free = new Map<number, number>();
  const monthly = new Map<string, number>();
  return {
    take(userId, month, _monthEndMs, limits) {
      const monthKey = `${userId}:${month}`;
      const decision = decide(free.get(userId) ?? 0, monthly.get(monthKey) ?? 0, limits);
      if (decision.allowed) {
        if (limits.freeAllowance !== null) free.set(userId, (free.get(userId) ?? 0) + 1);
        if (limits.monthlyLimit !== null) monthly.set(monthKey, (monthly.get(monthKey) ?? 0) + 1);
      }
      return Promise.resolve(decision);
    },
    close() {
      free.clear();
      monthly.clear();
      return Promise.resolve();
    },
  };
}

// KEYS[1] lifetime counter, KEYS[2] month counter; ARGV free limit, monthly limit (0 = off), month
// counter expiry (ms since epoch). Returns { refused quota 0|1|2, used }.
const TAKE = new RedisScript(`
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local monthly = tonumber(redis.call('GET', KEYS[2]) or '0')
local free_limit = tonumber(ARGV[1])
local monthly_limit = tonumber(ARGV[2])
if free_limit > 0 and free >= free_limit then return { 1, free } end
if monthly_limit > 0 and monthly >= monthly_limit then return { 2, monthly } end
if free_limit > 0 then redis.call('INCR', KEYS[1]) end
if monthly_limit > 0 then
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIREAT', KEYS[2], ARGV[3])
end
return { 0, 0 }
`);

/** The Redis store: `tix:quota:{<user>}:free` (no expiry) and `tix:quota:{<user>}:<month>`. */
export function createRedisQuotaStore(client: LimitsRedisClient, keyPrefix = QUOTA_KEY_PREFIX): QuotaStore {
  return {
    async take(userId, month, monthEndMs, limits) {
      // The hash tag keeps both keys of a user in one slot (Redis Cluster).
      const base = `${keyPrefix}{${userId}}:`;
      const [refused, used] = await TAKE.run<[number, number]>(
        client,
        [`${base}free`, `${base}${month}`],
        [
          String(limits.freeAllowance ?? 0),
          String(limits.monthlyLimit ?? 0),
          // Kept a day past the month's end, so a late replica still sees the finished month.
          String(monthEndMs + 86_400_000),
        ],
      );
      if (refused === 1)
        return { allowed: false, quota: 'free_allowance', limit: limits.freeAllowance!, used };
      if (refused === 2) return { allowed: false, quota: 'monthly', limit: limits.monthlyLimit!, used };
      return { allowed: true };
    },
    close: () => Promise.resolve(),
  };
}

/** The middleware: counts API key callers' calls, 402 once a quota is used up. */
export function quota(options: {
  store: QuotaStore;
  limits: QuotaLimits;
  now?: () => number;
}): RequestHandler {
  const now = options.now ?? Date.now;
  return async (request, _response, next) => {
    const principal = request.principal;
    if (principal?.kind !== 'api_key') {
      next();
      return;
    }
    const { month, nextMonthStartMs } = calendarMonth(now());
    const decision = await options.store.take(principal.user_id, month, nextMonthStartMs, options.limits);
    if (decision.allowed) {
      next();
      return;
    }
    const monthly = decision.quota === 'monthly';
    throw new AppError(
      'payment_required',
      monthly ? MONTHLY_LIMIT_REACHED_MESSAGE : FREE_ALLOWANCE_EXHAUSTED_MESSAGE,
      {
        quota: decision.quota,
        limit: decision.limit,
        used: decision.used,
        reset_at: monthly ? new Date(nextMonthStartMs).toISOString().replace('.000Z', 'Z') : null,
      },
    );
  };
}
