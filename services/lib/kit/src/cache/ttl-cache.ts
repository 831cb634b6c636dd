/**
 * A small in-process cache with per-entry expiry and a size bound (oldest entries go first), for
 * what a process reads often and can afford to see a little late: authenticated keys and projects in
 * the gateway, projects, ticket types and users in the services. `load` shares one call among
 * concurrent misses and caches only found values, so something created a moment ago is visible at once.
 */

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export interface TtlCacheOptions {
  /** How long an entry lives unless set() says otherwise; 0 disables caching (every read loads). */
  ttlMs?: number;
  /** Upper bound on entries (default 10,000). */
  maxEntries?: number;
  now?: () => number;
}

/** Map-like cache whose entries expire; never holds more than `maxEntries`. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly inFlight = new Map<K, Promise<V | null>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: TtlCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 0;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The live value under `key`, or undefined (an expired entry is removed). */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` for `ttlMs` (default: the cache's TTL; nothing when not positive); evicts the oldest when full. */
  set(key: K, value: V, ttlMs = this.ttlMs): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /**
   * The cached value, else the result of `load` (cached unless null). Concurrent misses of one key
   * share a single `load`; a failed load is not cached and fails every waiter.
   */
  async load(key: K, load: () => Promise<V | null>): Promise<V | null> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = load()
        .then((value) => {
          if (value !== null) this.set(key, value);
          return value;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Deletes every entry whose value matches; returns how many went. */
  deleteWhere(matches: (value: V) => boolean): number {
    let deleted = 0;
    for (const [key, entry] of this.entries) {
      if (matches(entry.value)) {
        this.entries.delete(key);
        deleted += 1;
      }
    }
    return deleted;
  }

  /** Shortens every entry so none lives more than `maxTtlMs` from now. */
  capExpiry(maxTtlMs: number): void {
    const latest = this.now() + maxTtlMs;
    for (const entry of this.entries.values()) {
      if (entry.expiresAt > latest) entry.expiresAt = latest;
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
