/**
 * Exact sliding-log rate limiting: a bucket remembers the time of every hit it allowed within the
 * window; a new hit is allowed while fewer than `limit` remain. A hit at time t stops counting at
 * t + window exactly. Two stores with the same semantics: this in-memory one (one gateway without
 * REDIS_URL, and the fallback while Redis is unreachable) and redis-rate-limit-store.ts (shared by
 * every replica).
 */

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Hits still allowed in the window after this one. */
  remaining: number;
  /** When the oldest counted hit leaves the window, freeing a slot (ms since epoch); now + window when none. */
  resetAtMs: number;
  /** The store's clock at the decision (ms since epoch): Redis server time, or the process clock. */
  nowMs: number;
}

export interface RateLimitStore {
  /** Counts one hit on `bucket` if allowed; atomic per bucket. */
  take(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  /** What `take` would decide now, counting nothing (`allowed`: a hit would be). */
  peek(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** A growable queue of hit times (ascending), cheap to drop from the front. */
class HitLog {
  private times: number[] = [];
  private head = 0;

  get size(): number {
    return this.times.length - this.head;
  }
  oldest(): number | undefined {
    return this.times[this.head];
  }
  newest(): number | undefined {
    return this.times[this.times.length - 1];
  }
  push(time: number): void {
    this.times.push(time);
  }
  /** Drops hits at or before `cutoff`. */
  dropUpTo(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= cutoff) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

export interface MemoryRateLimitStoreOptions {
  now?: () => number;
  /** Buckets kept at most (oldest activity evicted first), bounding memory under address floods. */
  maxBuckets?: number;
}

/** The in-memory store (single process). */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const now = options.now ?? Date.now;
  const maxBuckets = options.maxBuckets ?? 100_000;
  // Map order = least recently hit first, for eviction.
  const buckets = new Map<string, { log: HitLog; windowMs: number }>();

  const evict = (time: number) => {
    for (const [name, bucket] of buckets) {
      if ((bucket.log.newest() ?? 0) + bucket.windowMs <= time) buckets.delete(name);
      else break;
    }
    if (buckets.size >= maxBuckets) {
      const first = buckets.keys().next();
      if (!first.done) buckets.delete(first.value);
    }
  };

  return {
    take(name, limit, windowMs) {
      const time = now();
      let bucket = buckets.get(name);
      if (bucket) buckets.delete(name);
      else {
        evict(time);
        bucket = { log: new HitLog(), windowMs };
      }
      buckets.set(name, bucket);
      bucket.windowMs = windowMs;
      bucket.log.dropUpTo(time - windowMs);
      const allowed = bucket.log.size < limit;
      if (allowed) bucket.log.push(time);
      return Promise.resolve({
        allowed,
        limit,
        remaining: Math.max(0, limit - bucket.log.size),
        resetAtMs: (bucket.log.oldest() ?? time) + windowMs,
        nowMs: time,
      });
    },
    peek(name, limit, windowMs) {
      const time = now();
      const log = buckets.get(name)?.log;
      // Dropping hits that left the window changes nothing a take would see.
      log?.dropUpTo(time - windowMs);
      const size = log?.size ?? 0;
      return Promise.resolve({
        allowed: size < limit,
        limit,
        remaining: Math.max(0, limit - size),
        resetAtMs: (log?.oldest() ?? time) + windowMs,
        nowMs: time,
      });
    },
    close() {
      buckets.clear();
      return Promise.resolve();
    },
  };
}
