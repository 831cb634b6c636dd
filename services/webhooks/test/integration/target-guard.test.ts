/**
 * The SSRF guard at delivery time, with real sockets: an attempt connects only to the addresses the
 * target policy approved (a custom lookup pins them, so the name is never resolved again by the
 * socket), and a subscription whose host resolves to a private address by the time of the attempt
 * (DNS rebinding) is refused before any connection is made.
 */
import { expect } from 'chai';
import { createServiceClient } from '@tix/kit';
import { eventually } from '@tix/kit/testing';
import { createHttpSender } from '../../src/delivery/http-sender.js';
import type { Resolver } from '../../src/delivery/target-policy.js';
import { startTestWebhookServer } from '../../src/testing.js';
import { asUser, domainEvent, startReceiver } from './support.js';

describe('SSRF guard at delivery time', function () {
  this.timeout(30_000);

  it('connects to the pinned address, whatever the host name would resolve to', async () => {
    const receiver = await startReceiver();
    const sender = createHttpSender({ maxSocketsPerHost: 2 });
    try {
      const outcome = await sender.send({
        url: new URL(`http://pinned.invalid:${receiver.port}/hook?x=1`),
        addresses: [{ address: '127.0.0.1', family: 4 }],
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{}'),
        timeoutMs: 2_000,
      });
      expect(outcome).to.deep.equal({
        responseCode: 200,
        error: null,
        responseBody: 'ok',
        responseBodyTruncated: false,
      });
      expect(receiver.requests).to.have.length(1);
      expect(receiver.requests[0]!.headers.host).to.equal(`pinned.invalid:${receiver.port}`);
      expect(receiver.requests[0]!.path).to.equal('/hook?x=1');
      // Without the pin (and without a kept-alive socket), the same name does not resolve at all.
      const fresh = createHttpSender({ maxSocketsPerHost: 2 });
      const unpinned = await fresh.send({
        url: new URL(`http://pinned.invalid:${receiver.port}/hook`),
        addresses: null,
        headers: {},
        body: Buffer.from('{}'),
        timeoutMs: 2_000,
      });
      fresh.close();
      expect(unpinned.responseCode).to.equal(null);
      expect(unpinned.error).to.match(/ENOTFOUND|EAI_AGAIN/);
    } finally {
      sender.close();
      await receiver.close();
    }
  });

  it('refuses an attempt when the host has come to resolve to a private address (DNS rebinding)', async () => {
    const receiver = await startReceiver();
    let answer = '93.184.215.14';
    const resolver: Resolver = () => Promise.resolve([{ address: answer, family: 4 }]);
    const service = await startTestWebhookServer({
      targetMode: 'production',
      resolver,
      secretKey: Buffer.alloc(32, 1),
      attemptTimeoutMs: 1_000,
    });
    const client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
    const owner = asUser(5);
    try {
      const hook = await client.CreateWebhook(
        {
          project_id: 1,
          url: `https://rebind.example.test:${receiver.port}/hook`,
          events: ['ticket.created'],
        },
        owner,
      );
      answer = '127.0.0.1'; // the attacker's DNS now points at us
      await service.fanOut(domainEvent('ticket.created', 1, { id: 1 }));
      const page = await eventually(async () => {
        const result = await client.ListDeliveries({ project_id: 1, webhook_id: hook.id }, owner);
        return result.deliveries[0]?.status === 'failed' ? result : undefined;
      }, 10_000);
      const attempts = page.deliveries[0]!.attempts;
      expect(attempts).to.have.length(3);
      for (const attempt of attempts) {
        expect(attempt.response_code).to.equal(undefined);
        expect(attempt.error).to.equal(
          'target refused: URL must not point to a private, loopback, link-local or other internal address: ' +
            '127.0.0.1 (loopback)',
        );
      }
      expect(receiver.connections()).to.equal(0);
    } finally {
      client.close();
      await service.stop();
      await receiver.close();
    }
  });
});
