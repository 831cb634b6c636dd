import { expect } from 'chai';
import amqp from 'amqplib';
import { AppError } from '@tix/kit';
import { createTestVhost, eventually, startTcpProxy, testLogger, type TestVhost } from '@tix/kit/testing';
import { EVENTS_EXCHANGE } from '@tix/protos';
import { startRevocationListener, type RevocationListener } from '../../src/auth/revocation-listener.js';
import { FULL_KEY, KEYS, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { bearer, request, startTestGateway, type TestGateway } from '../support/test-gateway.js';

describe('API key cache eviction on api_key.revoked (real RabbitMQ vhost)', () => {
  let vhost: TestVhost;
  let lookup: FakeLookup;
  let gateway: TestGateway;
  let listener: RevocationListener;
  let publisher: amqp.ChannelModel;
  let channel: amqp.Channel;

  before(async () => {
    vhost = await createTestVhost('gateway_revocation');
    lookup = await startFakeLookup();
    gateway = await startTestGateway({ services: { lookup: lookup.address }, authCacheTtlMs: 600_000 });
    listener = startRevocationListener({
      amqpUrl: vhost.url,
      logger: testLogger(),
      onRevoked: (revocation) => {
        if (revocation.kind === 'api_key') gateway.apiKeys.evictKey(revocation.keyId);
        else gateway.apiKeys.evictUser(revocation.userId);
      },
      onConnectionChange: (connected) => gateway.apiKeys.setRevocationFeedConnected(connected),
    });
    await eventually(() => listener.isConnected());
    publisher = await amqp.connect(vhost.url);
    channel = await publisher.createChannel();
  });
  after(async () => {
    await publisher?.close();
    await listener?.stop();
    await gateway?.close();
    await lookup?.stop();
    await vhost?.drop();
  });

  const publish = (type: string, data: unknown) =>
    channel.publish(
      EVENTS_EXCHANGE,
      type,
      Buffer.from(JSON.stringify({ id: 'e1', type, occurred_at: '', source: 'lookup', data })),
    );

  it('keeps serving a cached key, then refuses it soon after its revocation event', async () => {
    const users = () => request(`${gateway.apiUrl}/v1/users`, { headers: bearer(FULL_KEY) });
    expect((await users()).status).to.equal(200);
    expect((await users()).status).to.equal(200);
    expect(lookup.calls.AuthenticateApiKey).to.equal(1);

    // The key is revoked in lookup; the cache does not know yet.
    lookup.override('AuthenticateApiKey', () => Promise.reject(AppError.unauthenticated('revoked')));
    expect((await users()).status).to.equal(200);

    // Another key's revocation and a malformed event evict nothing.
    publish('api_key.revoked', { id: 999 });
    publish('api_key.revoked', { nope: true });
    // The real one.
    publish('api_key.revoked', { id: KEYS[FULL_KEY]!.key_id, revoked_at: new Date().toISOString() });

    const refused = await eventually(async () => {
      const response = await users();
      return response.status === 401 ? response : undefined;
    });
    expect(refused.body).to.deep.equal({ ok: false, error: { code: 401, message: 'Invalid API key' } });
    lookup.reset();
  });

  it('survives a broker outage: reports it, reconnects, and hears revocations again', async () => {
    const target = new URL(vhost.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5672) });
    target.port = String(proxy.port);
    const changes: boolean[] = [];
    const revoked: number[] = [];
    const flaky = startRevocationListener({
      amqpUrl: target.toString(),
      logger: testLogger(),
      onRevoked: (revocation) => void (revocation.kind === 'api_key' && revoked.push(revocation.keyId)),
      onConnectionChange: (connected) => changes.push(connected),
      initialRetryDelayMs: 20,
      maxRetryDelayMs: 100,
    });
    try {
      await eventually(() => flaky.isConnected());
      await proxy.cut();
      await eventually(() => !flaky.isConnected());
      await proxy.restore();
      await eventually(() => flaky.isConnected());
      expect(changes).to.deep.equal([true, false, true]);
      publish('api_key.revoked', { id: 5 });
      await eventually(() => revoked.includes(5));
    } finally {
      await flaky.stop();
      await proxy.close();
    }
  });
});
