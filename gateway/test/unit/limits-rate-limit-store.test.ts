/**
 * One suite, run against both rate limit stores: the in-memory one on a fake clock, and the Redis one
 * on a real Redis (its clock is the server's TIME, so the suite waits for real there, on short
 * windows). The boundary, the reset/remaining figures and isolation must be identical.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testLogger } from '@tix/kit/testing';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/limits/rate-limit-store.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/redis/connect-redis.js';
import { createRedisRateLimitStore } from '../../src/limits/redis-rate-limit-store.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

interface Harness {
  store: RateLimitStore;
  /** The store's clock now (ms). */
  now(): Promise<number>;
  /** Waits (or advances the fake clock) until the store's clock reads at least `ms`. */
  until(ms: number): Promise<void>;
}

function describeStore(name: string, setUp: () => Promise<Harness>, tearDown: () => Promise<void>): void {
  describe(`rate limit store: ${name}`, function () {
    this.timeout(10_000);
    let harness: Harness;
    // Unique per test run, so reruns against one Redis start empty.
    const bucket = (label: string) => `${label}:${randomBytes(4).toString('hex')}`;

    before(async () => {
      harness = await setUp();
    });
    after(tearDown);

    it('allows exactly `limit` hits, then refuses with remaining 0', async () => {
      const name = bucket('boundary');
      const decisions = [];
      for (let i = 0; i < 101; i += 1) decisions.push(await harness.store.take(name, 100, 60_000));
      expect(decisions.slice(0, 100).every((decision) => decision.allowed)).to.equal(true);
      expect(decisions.slice(0, 100).map((decision) => decision.remaining)).to.deep.equal(
        Array.from({ length: 100 }, (_, i) => 99 - i),
      );
      const refused = decisions[100]!;
      expect(refused.allowed).to.equal(false);
      expect(refused.remaining).to.equal(0);
      expect(refused.limit).to.equal(100);
      // The slot frees when the first hit leaves the window.
      expect(refused.resetAtMs).to.be.closeTo(decisions[0]!.nowMs + 60_000, 1);
      expect(refused.resetAtMs - refused.nowMs).to.be.within(59_000, 60_000);
    });

    it('reports reset = first hit + window while allowing, and now + window for an empty bucket', async () => {
      const name = bucket('reset');
      const first = await harness.store.take(name, 3, 60_000);
      expect(first.resetAtMs).to.be.closeTo(first.nowMs + 60_000, 1);
      const second = await harness.store.take(name, 3, 60_000);
      expect(second.resetAtMs).to.be.closeTo(first.nowMs + 60_000, 1);
      expect(second.remaining).to.equal(1);
    });

    it('frees a slot exactly when the oldest hit leaves the window, not before', async () => {
      const name = bucket('slide');
      const windowMs = 400;
      const first = await harness.store.take(name, 2, windowMs);
      await harness.until(first.nowMs + 150);
      const second = await harness.store.take(name, 2, windowMs);
      expect(second.allowed).to.equal(true);
      const refused = await harness.store.take(name, 2, windowMs);
      expect(refused.allowed).to.equal(false);
      expect(refused.resetAtMs).to.be.closeTo(first.nowMs + windowMs, 1);

      // Shortly before the first hit expires: still full.
      await harness.until(first.nowMs + windowMs - 60);
      const early = await harness.store.take(name, 2, windowMs);
      expect(early.allowed, `at ${early.nowMs - first.nowMs} ms`).to.equal(false);
      // From the instant it expires: one slot (the second hit still counts).
      await harness.until(first.nowMs + windowMs);
      const freed = await harness.store.take(name, 2, windowMs);
      expect(freed.allowed).to.equal(true);
      expect(freed.remaining).to.equal(0);
      expect(freed.resetAtMs).to.be.closeTo(second.nowMs + windowMs, 1);
      expect((await harness.store.take(name, 2, windowMs)).allowed).to.equal(false);
    });

    it('does not count refused hits (a client hammering while limited is freed on time)', async () => {
      const name = bucket('refused');
      const first = await harness.store.take(name, 1, 300);
      for (let i = 0; i < 5; i += 1) expect((await harness.store.take(name, 1, 300)).allowed).to.equal(false);
      await harness.until(first.nowMs + 300);
      expect((await harness.store.take(name, 1, 300)).allowed).to.equal(true);
    });

    it('keeps buckets apart', async () => {
      const [a, b] = [bucket('a'), bucket('b')];
      expect((await harness.store.take(a, 1, 60_000)).allowed).to.equal(true);
      expect((await harness.store.take(a, 1, 60_000)).allowed).to.equal(false);
      expect((await harness.store.take(b, 1, 60_000)).allowed).to.equal(true);
    });

    it('peeks at a bucket without counting: the figures the next take would start from', async () => {
      const name = bucket('peek');
      const empty = await harness.store.peek(name, 2, 300);
      expect(empty).to.include({ allowed: true, limit: 2, remaining: 2 });
      expect(empty.resetAtMs).to.be.closeTo(empty.nowMs + 300, 1);
      const first = await harness.store.take(name, 2, 300);
      for (let i = 0; i < 3; i += 1) {
        const peeked = await harness.store.peek(name, 2, 300);
        expect(peeked).to.include({ allowed: true, remaining: 1 });
        expect(peeked.resetAtMs).to.be.closeTo(first.nowMs + 300, 1);
      }
      await harness.until(first.nowMs + 100);
      expect((await harness.store.take(name, 2, 300)).remaining).to.equal(0);
      expect(await harness.store.peek(name, 2, 300)).to.include({ allowed: false, remaining: 0 });
      // The first hit leaves the window: a slot is free, for a peek as for a take.
      await harness.until(first.nowMs + 300);
      expect(await harness.store.peek(name, 2, 300)).to.include({ allowed: true, remaining: 1 });
      expect((await harness.store.take(name, 2, 300)).allowed).to.equal(true);
    });

    it('lets exactly `limit` of 130 concurrent takes through', async () => {
      const name = bucket('concurrent');
      const decisions = await Promise.all(
        Array.from({ length: 130 }, () => harness.store.take(name, 100, 60_000)),
      );
      expect(decisions.filter((decision) => decision.allowed)).to.have.length(100);
      expect(decisions.filter((decision) => !decision.allowed)).to.have.length(30);
      const remainders = decisions
        .filter((decision) => decision.allowed)
        .map((decision) => decision.remaining);
      expect(new Set(remainders).size).to.equal(100);
    });
  });
}

let clock = 1_700_000_000_000;
describeStore(
  'in memory (fake clock)',
  () =>
    Promise.resolve({
      store: createMemoryRateLimitStore({ now: () => clock }),
      now: () => Promise.resolve(clock),
      until: (ms: number) => {
        clock = Math.max(clock, ms);
        return Promise.resolve();
      },
    }),
  () => Promise.resolve(),
);

let client: RedisClient;
const prefix = `tix:test:${randomBytes(4).toString('hex')}:rl:`;
const redisNow = async () => {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
};
describeStore(
  'redis (server clock)',
  async () => {
    client = await connectRedis({ url: REDIS_URL, logger: testLogger() });
    return {
      store: createRedisRateLimitStore(client, prefix),
      now: redisNow,
      async until(ms: number) {
        for (;;) {
          const remaining = ms - (await redisNow());
          if (remaining <= 0) return;
          await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(remaining, 50))));
        }
      },
    };
  },
  async () => {
    for (const key of await client.keys(`${prefix}*`)) await client.del(key);
    await closeRedis(client);
  },
);

describe('rate limit store: in memory specifics', () => {
  it('evicts the least recently hit bucket when full', async () => {
    let now = 0;
    const store = createMemoryRateLimitStore({ now: () => now, maxBuckets: 2 });
    await store.take('a', 1, 60_000);
    now += 1;
    await store.take('b', 1, 60_000);
    now += 1;
    await store.take('c', 1, 60_000); // evicts a
    expect((await store.take('b', 1, 60_000)).allowed).to.equal(false);
    expect((await store.take('a', 1, 60_000)).allowed).to.equal(true);
  });
});
