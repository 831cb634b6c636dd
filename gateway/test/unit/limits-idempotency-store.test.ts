/** Both idempotency stores against one suite (Redis: a real server); expiry on the memory store's clock. */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testLogger } from '@tix/kit/testing';
import {
  createMemoryIdempotencyStore,
  createRedisIdempotencyStore,
  type CompletedRecord,
  type IdempotencyStore,
} from '../../src/limits/idempotency-store.js';
import { createMemoryQuotaStore, createRedisQuotaStore, type QuotaStore } from '../../src/limits/quota.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/redis/connect-redis.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const DONE: CompletedRecord = {
  state: 'done',
  fingerprint: 'f1',
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from('{"ok":true}').toString('base64'),
};

function describeStores(
  name: string,
  make: () => Promise<{ idempotency: IdempotencyStore; quotas: QuotaStore }>,
): void {
  describe(`limits stores: ${name}`, () => {
    let idempotency: IdempotencyStore;
    let quotas: QuotaStore;
    const key = () => randomBytes(6).toString('hex');
    before(async () => {
      ({ idempotency, quotas } = await make());
    });

    it('claims once; a second claim sees the in-flight record', async () => {
      const k = key();
      expect(
        await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 't1' }, 60_000),
      ).to.equal(null);
      expect(
        await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f2', token: 't2' }, 60_000),
      ).to.deep.equal({ state: 'in_flight', fingerprint: 'f1', token: 't1' });
    });

    it('completes only with the claim token, then returns the stored response', async () => {
      const k = key();
      await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 't1' }, 60_000);
      await idempotency.complete(k, 'someone-else', DONE, 60_000);
      expect(
        (await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 'x' }, 60_000))?.state,
      ).to.equal('in_flight');
      await idempotency.complete(k, 't1', DONE, 60_000);
      expect(
        await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 'x' }, 60_000),
      ).to.deep.equal(DONE);
    });

    it('release frees the key for a retry (but not a completed one)', async () => {
      const k = key();
      await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 't1' }, 60_000);
      await idempotency.release(k, 't1');
      expect(
        await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 't2' }, 60_000),
      ).to.equal(null);
      await idempotency.complete(k, 't2', DONE, 60_000);
      await idempotency.release(k, 't2');
      expect(
        (await idempotency.claim(k, { state: 'in_flight', fingerprint: 'f1', token: 't3' }, 60_000))?.state,
      ).to.equal('done');
    });

    it('quota: counts per user and refuses at the monthly limit and the free allowance', async () => {
      const user = Math.floor(Math.random() * 1e9);
      // The counters expire at the month's end: a day from now, whenever the test runs (a fixed date
      // would have expired them already once that date has passed).
      const month = { limits: { freeAllowance: null, monthlyLimit: 2 }, end: Date.now() + 86_400_000 };
      expect(await quotas.take(user, '2026-11', month.end, month.limits)).to.deep.equal({ allowed: true });
      expect(await quotas.take(user, '2026-11', month.end, month.limits)).to.deep.equal({ allowed: true });
      expect(await quotas.take(user, '2026-11', month.end, month.limits)).to.deep.equal({
        allowed: false,
        quota: 'monthly',
        limit: 2,
        used: 2,
      });
      // A new month starts from zero; another user is unaffected.
      expect((await quotas.take(user, '2026-12', month.end, month.limits)).allowed).to.equal(true);
      expect((await quotas.take(user + 1, '2026-11', month.end, month.limits)).allowed).to.equal(true);

      const free = { freeAllowance: 1, monthlyLimit: null };
      expect((await quotas.take(user + 2, '2026-11', month.end, free)).allowed).to.equal(true);
      expect(await quotas.take(user + 2, '2027-01', month.end, free)).to.deep.equal({
        allowed: false,
        quota: 'free_allowance',
        limit: 1,
        used: 1,
      });
    });
  });
}

describeStores('in memory', () =>
  Promise.resolve({ idempotency: createMemoryIdempotencyStore(), quotas: createMemoryQuotaStore() }),
);

describe('limits stores: redis', () => {
  let client: RedisClient;
  const prefix = `tix:test:${randomBytes(4).toString('hex')}:`;
  before(async () => {
    client = await connectRedis({ url: REDIS_URL, logger: testLogger() });
  });
  after(async () => {
    for (const key of await client.keys(`${prefix}*`)) await client.del(key);
    await closeRedis(client);
  });
  describeStores('redis', () =>
    Promise.resolve({
      idempotency: createRedisIdempotencyStore(client, `${prefix}idem:`),
      quotas: createRedisQuotaStore(client, `${prefix}quota:`),
    }),
  );

  it('keeps records with their TTL on the key', async () => {
    const store = createRedisIdempotencyStore(client, `${prefix}idem:`);
    await store.claim('ttl', { state: 'in_flight', fingerprint: 'f', token: 't' }, 65_000);
    expect(await client.pTTL(`${prefix}idem:ttl`)).to.be.within(60_000, 65_000);
    await store.complete('ttl', 't', DONE, 3_600_000);
    expect(await client.pTTL(`${prefix}idem:ttl`)).to.be.within(3_590_000, 3_600_000);
  });
});

describe('limits stores: in-memory expiry (injectable clock)', () => {
  it('forgets a stored response after the retention, and a stale claim after its TTL', async () => {
    let now = 0;
    const store = createMemoryIdempotencyStore({ now: () => now });
    await store.claim('k', { state: 'in_flight', fingerprint: 'f1', token: 't1' }, 65_000);
    now += 64_999;
    expect(
      (await store.claim('k', { state: 'in_flight', fingerprint: 'f1', token: 't2' }, 65_000))?.state,
    ).to.equal('in_flight');
    now += 1;
    // The claim of a crashed request expired: the retry claims anew.
    expect(await store.claim('k', { state: 'in_flight', fingerprint: 'f1', token: 't3' }, 65_000)).to.equal(
      null,
    );
    await store.complete('k', 't3', DONE, 3_600_000);
    now += 3_599_999;
    expect(
      (await store.claim('k', { state: 'in_flight', fingerprint: 'f1', token: 't4' }, 65_000))?.state,
    ).to.equal('done');
    now += 1;
    expect(await store.claim('k', { state: 'in_flight', fingerprint: 'f1', token: 't5' }, 65_000)).to.equal(
      null,
    );
  });

  it('stays within its size bound', async () => {
    const store = createMemoryIdempotencyStore({ maxRecords: 3 });
    for (const k of ['a', 'b', 'c', 'd']) {
      await store.claim(k, { state: 'in_flight', fingerprint: 'f', token: k }, 60_000);
    }
    // 'a' (the oldest) made room for 'd'.
    expect(await store.claim('a', { state: 'in_flight', fingerprint: 'f', token: 'x' }, 60_000)).to.equal(
      null,
    );
    expect(
      await store.claim('d', { state: 'in_flight', fingerprint: 'f', token: 'x' }, 60_000),
    ).to.deep.equal({ state: 'in_flight', fingerprint: 'f', token: 'd' });
  });
});
