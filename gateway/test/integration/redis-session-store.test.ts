import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createClient } from 'redis';
import { AppError } from '@tix/kit';
import { freePort, startTcpProxy, testLogger, type TcpProxy } from '@tix/kit/testing';
import { closeRedis, connectRedis, type RedisClient } from '../../src/redis/connect-redis.js';
import { createRedisSessionStore } from '../../src/sessions/redis-session-store.js';
import { newSessionId, type SessionData, type SessionStore } from '../../src/sessions/session-store.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const DATA: SessionData = {
  csrfToken: 'token-1',
  createdAt: '2026-01-01T00:00:00.000Z',
  user: { id: 7, role: 'agent' },
};

describe('Redis session store (real Redis)', () => {
  const prefix = `tix:test:${randomBytes(4).toString('hex')}:`;
  let inspector: ReturnType<typeof createClient>;
  let client: RedisClient;
  let store: SessionStore;

  before(async () => {
    inspector = createClient({ url: REDIS_URL });
    await inspector.connect();
    client = await connectRedis({ url: REDIS_URL, logger: testLogger() });
    store = createRedisSessionStore({ client, ttlSeconds: 100, keyPrefix: prefix });
  });
  after(async () => {
    for (const key of await inspector.keys(`${prefix}*`)) await inspector.del(key);
    await store.close();
    await closeRedis(client);
    await inspector.close();
  });

  it('stores under sha256(id) with the TTL, never the raw id', async () => {
    const id = newSessionId();
    await store.save(id, DATA);
    const key = prefix + createHash('sha256').update(id).digest('hex');
    expect(JSON.parse((await inspector.get(key))!)).to.deep.equal(DATA);
    expect(await inspector.ttl(key)).to.be.within(1, 100);
    expect(await inspector.keys(`*${id}*`)).to.deep.equal([]);
  });

  it('slides the expiry on load, and forgets destroyed sessions', async () => {
    const id = newSessionId();
    await store.save(id, DATA);
    const key = prefix + createHash('sha256').update(id).digest('hex');
    await inspector.expire(key, 5);
    expect(await store.load(id)).to.deep.equal(DATA);
    expect(await inspector.ttl(key)).to.be.greaterThan(5);
    await store.destroy(id);
    expect(await store.load(id)).to.equal(null);
    expect(await store.load(newSessionId())).to.equal(null);
  });

  it("ends a user's sessions started before a time, keeping newer ones and other users'", async () => {
    const [old1, old2, fresh, other] = [newSessionId(), newSessionId(), newSessionId(), newSessionId()];
    const user = { id: 900, role: 'agent' as const };
    await store.save(old1, { ...DATA, user, createdAt: '2026-01-01T00:00:00.000Z' });
    await store.save(old2, { ...DATA, user, createdAt: '2026-01-01T00:00:01.000Z' });
    await store.save(fresh, { ...DATA, user, createdAt: '2026-01-02T00:00:00.000Z' });
    await store.save(other, {
      ...DATA,
      user: { id: 901, role: 'agent' },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await store.destroyUserSessions(900, new Date('2026-01-01T12:00:00.000Z'))).to.equal(2);
    expect(await store.load(old1)).to.equal(null);
    expect(await store.load(old2)).to.equal(null);
    expect(await store.load(fresh)).to.not.equal(null);
    expect(await store.load(other)).to.not.equal(null);
    expect(await inspector.sCard(`${prefix}user:900`)).to.equal(1);
  });

  describe('when Redis is unreachable', () => {
    let proxy: TcpProxy;
    let flakyClient: RedisClient;
    let flaky: SessionStore;
    before(async () => {
      const target = new URL(REDIS_URL);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
      flakyClient = await connectRedis({ url: `redis://127.0.0.1:${proxy.port}`, logger: testLogger() });
      flaky = createRedisSessionStore({ client: flakyClient, ttlSeconds: 100, keyPrefix: prefix });
    });
    after(async () => {
      await flaky.close();
      await closeRedis(flakyClient);
      await proxy.close();
    });

    it('fails fast with 503 instead of queueing, and recovers', async () => {
      const id = newSessionId();
      await flaky.save(id, DATA);
      await proxy.cut();
      const error = await flaky.load(id).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).kind).to.equal('unavailable');
      expect((error as AppError).message).to.equal('Session store unavailable');
      await proxy.restore();
      let loaded: SessionData | null | undefined;
      for (let attempt = 0; attempt < 100 && loaded === undefined; attempt += 1) {
        loaded = await flaky.load(id).catch(() => undefined);
        if (loaded === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(loaded).to.deep.equal(DATA);
    });

    it('starts without Redis at all (does not block the gateway)', async () => {
      const absentClient = await connectRedis({
        url: `redis://127.0.0.1:${await freePort()}`,
        logger: testLogger(),
        startupWaitMs: 100,
      });
      const absent = createRedisSessionStore({ client: absentClient, ttlSeconds: 100 });
      try {
        const error = await absent.load(newSessionId()).catch((caught: unknown) => caught);
        expect((error as AppError).kind).to.equal('unavailable');
      } finally {
        await absent.close();
        await closeRedis(absentClient);
      }
    });
  });
});
