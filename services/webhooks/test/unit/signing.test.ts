import { expect } from 'chai';
import type { DomainEvent } from '@tix/protos';
import {
  deliveryBody,
  deliveryHeaders,
  hexSignature,
  standardSignature,
  standardWebhooksKey,
} from '../../src/delivery/signing.js';

describe('signing', () => {
  it('the spec signature: lowercase hex HMAC-SHA256 of the raw body (known vector)', () => {
    const body = '{"event":"ticket.created","timestamp":1700000000,"data":{"id":1}}';
    expect(hexSignature('test-secret', body)).to.equal(
      '3502fbe054b0c578881173ed152ce0a7761ceb5d6d8359ae8a4be198a2e641cd',
    );
  });

  it('the Standard Webhooks signature matches the specification test vector', () => {
    expect(
      standardSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).to.equal('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('keys: whsec_ secrets are base64-decoded; other secrets are their UTF-8 bytes', () => {
    expect(standardWebhooksKey('whsec_AAEC')).to.deep.equal(Buffer.from([0, 1, 2]));
    expect(standardWebhooksKey('plain-secret-123456')).to.deep.equal(Buffer.from('plain-secret-123456'));
    // A whsec_ prefix followed by something that is not canonical base64 is used as text.
    expect(standardWebhooksKey('whsec_not base64!')).to.deep.equal(Buffer.from('whsec_not base64!'));
  });

  it('the body is { event, timestamp (Unix seconds of occurred_at), data }, serialised once', () => {
    const body = deliveryBody({
      type: 'comment.created',
      occurred_at: '2026-11-21T10:00:00.999Z',
      data: { id: 3, content: 'caf\u00e9' },
    });
    expect(body).to.equal(
      '{"event":"comment.created","timestamp":1795255200,"data":{"id":3,"content":"café"}}',
    );
  });

  it('the body ignores the v1.1 envelope fields (actor, changes, defaulted_fields): webhook payloads are unchanged', () => {
    const event = {
      id: '2b6c0000-0000-4000-8000-000000000000',
      type: 'ticket.created' as const,
      occurred_at: '2026-11-21T10:00:00.999Z',
      source: 'tickets',
      project_id: 1,
      data: { id: 3 },
    };
    const v11: DomainEvent = {
      ...event,
      actor: { kind: 'user', user_id: 2, api_key_id: null },
      changes: {},
      defaulted_fields: ['priority'],
    };
    const body = deliveryBody(v11);
    expect(body).to.equal(deliveryBody(event));
    expect(body).to.equal('{"event":"ticket.created","timestamp":1795255200,"data":{"id":3}}');
  });

  it('headers carry both schemes, signed over the exact bytes sent', () => {
    const body = Buffer.from('{"event":"ticket.updated","timestamp":1,"data":{}}');
    const headers = deliveryHeaders({
      eventType: 'ticket.updated',
      eventId: '8c1d6a3e-0000-4000-8000-000000000000',
      secret: 'test-secret-0123456789',
      body,
      now: new Date('2026-11-21T10:00:05.700Z'),
    });
    expect(headers).to.deep.equal({
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      'User-Agent': 'Tix-Webhooks/1',
      'X-Webhook-Event': 'ticket.updated',
      'X-Webhook-Signature': hexSignature('test-secret-0123456789', body),
      'webhook-id': '8c1d6a3e-0000-4000-8000-000000000000',
      'webhook-timestamp': '1795255205',
      'webhook-signature': standardSignature(
        'test-secret-0123456789',
        '8c1d6a3e-0000-4000-8000-000000000000',
        1795255205,
        body,
      ),
    });
  });
});
