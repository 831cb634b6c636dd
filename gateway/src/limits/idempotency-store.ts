/**
 * Where idempotency records live: an in-flight claim while the first request runs, then its stored
 * response for the retention period. Two stores with the same semantics: this in-memory one (with an
 * injectable clock) and the Redis one (shared by replicas).
 */
import { RedisScript, type LimitsRedisClient } from './redis-backend.js';

export const IDEMPOTENCY_KEY_PREFIX = 'tix:idem:';

export interface InFlightRecord {
  state: 'in_flight';
  fingerprint: string;
  /** Identifies the claim, so only its owner completes or releases it. */
  token: string;
}

export interface StoredResponse {
  status: number;
  /** Headers worth replaying (Content-Type, Location), lower-case names. */
  headers: Record<string, string>;
  /** The exact body bytes, base64. */
  body: string;
}

export interface CompletedRecord extends StoredResponse {
  state: 'done';
  fingerprint: string;
}

export type IdempotencyRecord = InFlightRecord | CompletedRecord;

export interface IdempotencyStore {
  /** Claims `key` for `claim` (alive `claimTtlMs`), or returns the record already held there. */
  claim(key: string, claim: InFlightRecord, claimTtlMs: number): Promise<IdempotencyRecord | null>;
  /** Replaces the claim `token` by the completed record (kept `ttlMs`); no-op if the claim is gone. */
  complete(key: string, token: string, record: CompletedRecord, ttlMs: number): Promise<void>;
  /** Drops the claim `token` (the request failed: the client may retry). */
  release(key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

export interface MemoryIdempotencyStoreOptions {
  now?: () => number;
  maxRecords?: number;
}

/** The in-memory store. */
export function createMemoryIdempotencyStore(options: MemoryIdempotencyStoreOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const maxRecords = options.maxRecords ?? 100_000;
  const records = new Map<string, { record: IdempotencyRecord; expiresAt: number }>();

  const live = (key: string) => {
    const entry = records.get(key);
    if (entry && entry.expiresAt <= now()) {
      records.delete(key);
      return undefined;
    }
    return entry;
  };
  const makeRoom = () => {
    if (records.size < maxRecords) return;
    const time = now();
    for (const [key, entry] of records) if (entry.expiresAt <= time) records.delete(key);
    // Still full: drop the oldest (Map order is insertion order).
    for (const key of records.keys()) {
      if (records.size < maxRecords) break;
      records.delete(key);
    }
  };

  return {
    claim(key, claim, claimTtlMs) {
      const existing = live(key);
      if (existing) return Promise.resolve(structuredClone(existing.record));
      makeRoom();
      records.set(key, { record: { ...claim }, expiresAt: now() + claimTtlMs });
      return Promise.resolve(null);
    },
    complete(key, token, record, ttlMs) {
      const existing = live(key);
      if (existing?.record.state === 'in_flight' && existing.record.token === token) {
        records.delete(key);
        records.set(key, { record: structuredClone(record), expiresAt: now() + ttlMs });
      }
      return Promise.resolve();
    },
    release(key, token) {
      const existing = live(key);
      if (existing?.record.state === 'in_flight' && existing.record.token === token) records.delete(key);
      return Promise.resolve();
    },
    close() {
      records.clear();
      return Promise.resolve();
    },
  };
}

// KEYS[1]; ARGV claim JSON, claim TTL ms. Returns the existing record JSON, or false when claimed.
const CLAIM = new RedisScript(`
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`);

// KEYS[1]; ARGV token, then (complete) record JSON and TTL ms. Acts only while the claim is ours.
const COMPLETE = new RedisScript(`
local existing = redis.call('GET', KEYS[1])
if not existing then return 0 end
local record = cjson.decode(existing)
if record.state ~= 'in_flight' or record.token ~= ARGV[1] then return 0 end
if ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return 1
`);

/** The Redis store (keys `tix:idem:<hash>`, TTLs on the keys). */
export function createRedisIdempotencyStore(
  client: LimitsRedisClient,
  keyPrefix = IDEMPOTENCY_KEY_PREFIX,
): IdempotencyStore {
  return {
    async claim(key, claim, claimTtlMs) {
      const existing = await CLAIM.run<string | null>(
        client,
        [keyPrefix + key],
        [JSON.stringify(claim), String(claimTtlMs)],
      );
      return existing === null ? null : (JSON.parse(String(existing)) as IdempotencyRecord);
    },
    async complete(key, token, record, ttlMs) {
      await COMPLETE.run(client, [keyPrefix + key], [token, JSON.stringify(record), String(ttlMs)]);
    },
    async release(key, token) {
      await COMPLETE.run(client, [keyPrefix + key], [token]);
    },
    close: () => Promise.resolve(),
  };
}
