import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Logger } from '@tix/kit';
import { eventually, startTcpProxy, testLogger, type TcpProxy } from '@tix/kit/testing';
import { defaultLimitsConfig } from '../../src/limits/config.js';
import { createGatewayLimits } from '../../src/limits/index.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/redis/connect-redis.js';
import { createRedisSessionStore } from '../../src/sessions/redis-session-store.js';
import { newSessionId, type SessionData } from '../../src/sessions/session-store.js';
import { deleteRedisKeys } from '../support/limits-gateway.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const DATA: SessionData = { csrfToken: 'token', createdAt: '2026-01-01T00:00:00.000Z' };

/** A quiet logger that records what it was told. */
function recordingLogger(): { logger: Logger; lines: { level: string; msg: string }[] } {
  const logger = testLogger();
  const lines: { level: string; msg: string }[] = [];
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    logger[level] = (first: unknown, second?: unknown) => {
      lines.push({ level, msg: typeof first === 'string' ? first : String(second) });
    };
  }
  return { logger, lines };
}

describe('the gateway Redis connector (real Redis)', () => {
  const prefix = `tix:test:${randomBytes(4).toString('hex')}:`;
  let proxy: TcpProxy;
  let client: RedisClient | undefined;

  before(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  });
  afterEach(async () => {
    if (client) await closeRedis(client);
    client = undefined;
  });
  after(async () => {
    await proxy.close();
    await deleteRedisKeys(prefix);
  });

  it('serves sessions and limits on one client; both come back after an outage that is logged once', async () => {
    const { logger, lines } = recordingLogger();
    client = await connectRedis({ url: `redis://127.0.0.1:${proxy.port}`, logger });
    const sessions = createRedisSessionStore({ client, ttlSeconds: 60, keyPrefix: `${prefix}session:` });
    const limits = createGatewayLimits({
      config: { ...defaultLimitsConfig(), redisKeyPrefix: prefix },
      redis: client,
      logger: testLogger(),
      claimTtlMs: 60_000,
    });
    const id = newSessionId();
    await sessions.save(id, DATA);
    expect(limits.backend()).to.equal('redis');

    await proxy.cut();
    const refused = await sessions.load(id).catch((error: unknown) => error);
    expect(refused).to.have.property('kind', 'unavailable');
    await eventually(() => limits.backend() === 'degraded_in_memory');
    await new Promise((resolve) => setTimeout(resolve, 500)); // several reconnect attempts fail meanwhile
    await proxy.restore();

    expect(await eventually(() => sessions.load(id).catch(() => null), 10_000)).to.deep.equal(DATA);
    await eventually(() => limits.backend() === 'redis');
    // Closing either user leaves the shared client to its owner.
    await sessions.close();
    await limits.close();
    expect(client.isReady).to.equal(true);
    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings).to.deep.equal(['redis: connection lost; reconnecting in the background']);
    expect(lines.some((line) => line.level === 'info' && line.msg === 'redis: connected again')).to.equal(
      true,
    );
  });

  it('starts without Redis after a short wait, says so once, and connects when Redis appears', async () => {
    const { logger, lines } = recordingLogger();
    await proxy.cut();
    const started = Date.now();
    client = await connectRedis({ url: `redis://127.0.0.1:${proxy.port}`, logger, startupWaitMs: 200 });
    expect(Date.now() - started).to.be.lessThan(1_500);
    expect(client.isReady).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.restore();
    await eventually(() => client?.isReady, 10_000);
    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings).to.deep.equal([
      'redis: not reachable yet; session routes answer 503 and limits run in process until it is',
    ]);
    expect(lines.some((line) => line.msg === 'redis: connected again')).to.equal(true);
  });
});
