import { expect } from 'chai';
import { toDeliveryMessage, toWebhookMessage } from '../../src/webhook-mapper.js';

describe('delivery log messages', () => {
  it('maps rows to messages: secret only when given, absent codes and errors absent', () => {
    const row = {
      id: 4,
      project_id: 2,
      user_id: 9,
      url: 'https://x.test/',
      events: ['ticket.created'],
      is_active: true,
      created_at: new Date('2026-11-21T10:00:00.000Z'),
      previous_secret_expires_at: null,
    };
    expect(toWebhookMessage(row)).to.deep.equal({
      id: 4,
      url: 'https://x.test/',
      events: ['ticket.created'],
      is_active: true,
      created_at: '2026-11-21T10:00:00.000Z',
      project_id: 2,
    });
    expect(toWebhookMessage(row, 'whsec_x').secret).to.equal('whsec_x');
    expect(
      toWebhookMessage({ ...row, previous_secret_expires_at: new Date('2026-11-22T10:00:00.000Z') })
        .previous_secret_expires_at,
    ).to.equal('2026-11-22T10:00:00.000Z');
    expect(
      toDeliveryMessage({
        id: 'd',
        webhook_id: 4,
        event_id: 'e',
        event_type: 'ticket.created',
        status: 'failed',
        attempts: [
          { number: 1, response_code: null, duration_ms: 10, error: 'timeout', attempted_at: 't1' },
          {
            number: 2,
            response_code: 500,
            duration_ms: 3,
            error: 'HTTP 500',
            attempted_at: 't2',
            response_body: 'boom',
            response_body_truncated: false,
          },
        ],
        created_at: new Date('2026-11-21T10:00:00.000Z'),
        updated_at: new Date('2026-11-21T10:00:01.000Z'),
        body: `{"event":"ticket.created","data":"${'x'.repeat(5000)}"}`,
      }),
    ).to.deep.equal({
      id: 'd',
      webhook_id: 4,
      event_id: 'e',
      event: 'ticket.created',
      status: 'failed',
      attempts: [
        { number: 1, duration_ms: 10, attempted_at: 't1', error: 'timeout', response_body_truncated: false },
        {
          number: 2,
          duration_ms: 3,
          attempted_at: 't2',
          response_code: 500,
          error: 'HTTP 500',
          response_body: 'boom',
          response_body_truncated: false,
        },
      ],
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:01.000Z',
      request_body: `{"event":"ticket.created","data":"${'x'.repeat(4096 - 34)}`,
      request_body_truncated: true,
    });
  });
});
