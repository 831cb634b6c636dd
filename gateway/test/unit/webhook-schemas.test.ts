import { expect } from 'chai';
import { parseBody, parseParams, parseQuery } from '../../src/http/validate.js';
import { presentDelivery, presentWebhook } from '../../src/resources/presenters/webhooks.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  webhookIdParams,
} from '../../src/routes/v1/webhooks.schemas.js';
import { bodyErrors, thrownAppError as failure } from '../support/refusals.js';

describe('webhook route schemas', () => {
  it('path ids: a webhook id as digits (400 Invalid webhook id), a delivery id as a UUID', () => {
    expect(parseParams(webhookIdParams, { id: '12' })).to.deep.equal({ id: 12 });
    for (const raw of ['0', '-1', 'abc', '1.5', '01', '2147483648']) {
      const error = failure(() => parseParams(webhookIdParams, { id: raw }));
      expect([error.httpStatus, error.message], raw).to.deep.equal([400, 'Invalid webhook id']);
    }
    expect(
      parseParams(deliveryParams, { id: '3', deliveryId: '0B3F8A0E-6F5C-4A59-9A53-8D3F3A4F9C01' }),
    ).to.deep.equal({ id: 3, deliveryId: '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c01' });
    for (const raw of ['x', '0b3f8a0e6f5c4a599a538d3f3a4f9c01', '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c0']) {
      const error = failure(() => parseParams(deliveryParams, { id: '3', deliveryId: raw }));
      expect([error.httpStatus, error.message], raw).to.deep.equal([400, 'Invalid delivery id']);
    }
  });

  it('create body: accepts the spec fields (secret optional or null)', () => {
    expect(
      parseBody(createWebhookBody, { url: 'https://x.test/', events: ['ticket.created'], project_id: 1 }),
    ).to.deep.equal({ url: 'https://x.test/', events: ['ticket.created'], project_id: 1 });
    expect(
      parseBody(createWebhookBody, {
        url: 'https://x.test/',
        events: ['ticket.created'],
        project_id: 1,
        secret: null,
        extra: true,
      }),
    ).to.deep.equal({ url: 'https://x.test/', events: ['ticket.created'], project_id: 1, secret: null });
  });

  it('create body: 422 naming each field of the wrong shape', () => {
    expect(bodyErrors(createWebhookBody, {})).to.deep.equal({
      url: ['URL is required'],
      events: ['Events are required'],
      project_id: ['Project ID is required'],
    });
    expect(
      bodyErrors(createWebhookBody, { url: 5, events: 'ticket.created', project_id: '1', secret: 7 }),
    ).to.deep.equal({
      url: ['URL must be a string'],
      events: ['Events must be an array of event types'],
      project_id: ['Project ID must be an integer'],
      secret: ['Secret must be a string'],
    });
    expect(bodyErrors(createWebhookBody, { url: '', events: [], project_id: 1 })).to.deep.equal({
      url: ['URL is required'],
      events: ['Events must name at least one event type'],
    });
    expect(
      bodyErrors(createWebhookBody, { url: 'https://x/', events: ['a', 1], project_id: 1 }),
    ).to.deep.equal({
      'events[1]': ['Each event must be a string'],
    });
    expect(bodyErrors(createWebhookBody, [])).to.deep.equal({ body: ['Request body must be a JSON object'] });
  });

  it('deliveries query: page and per_page like the ticket list', () => {
    expect(parseQuery(listDeliveriesQuery, {})).to.deep.equal({ page: 1, per_page: 50 });
    expect(parseQuery(listDeliveriesQuery, { page: '2', per_page: '100' })).to.deep.equal({
      page: 2,
      per_page: 100,
    });
    const error = failure(() => parseQuery(listDeliveriesQuery, { per_page: '101' }));
    expect(error.httpStatus).to.equal(400);
    expect(error.validationErrors).to.deep.equal({ per_page: ['per_page must be an integer from 1 to 100'] });
  });
});

describe('webhook presenters', () => {
  it('a webhook shows its secret only when the message has one', () => {
    const message = {
      id: 1,
      url: 'https://x.test/',
      events: ['ticket.created'],
      is_active: true,
      created_at: '2026-11-21T10:00:00.000Z',
      project_id: 2,
    };
    expect(presentWebhook(message)).to.deep.equal(message);
    expect(presentWebhook({ ...message, secret: 'whsec_x' })).to.deep.equal({
      ...message,
      secret: 'whsec_x',
    });
  });

  it('a delivery shows absent response codes and errors as null', () => {
    expect(
      presentDelivery({
        id: 'd',
        webhook_id: 1,
        event_id: 'e',
        event: 'ticket.created',
        status: 'failed',
        attempts: [
          {
            number: 1,
            duration_ms: 10000,
            error: 'timeout after 10000 ms',
            attempted_at: 't1',
            response_body_truncated: false,
          },
          {
            number: 2,
            response_code: 200,
            duration_ms: 4,
            attempted_at: 't2',
            response_body: 'ok',
            response_body_truncated: false,
          },
        ],
        created_at: 'c',
        updated_at: 'u',
        request_body: '{"event":"ticket.created"}',
        request_body_truncated: false,
      }),
    ).to.deep.equal({
      id: 'd',
      webhook_id: 1,
      event: 'ticket.created',
      event_id: 'e',
      status: 'failed',
      attempts: [
        {
          number: 1,
          response_code: null,
          duration_ms: 10000,
          error: 'timeout after 10000 ms',
          attempted_at: 't1',
          response_body: null,
          response_body_truncated: false,
        },
        {
          number: 2,
          response_code: 200,
          duration_ms: 4,
          error: null,
          attempted_at: 't2',
          response_body: 'ok',
          response_body_truncated: false,
        },
      ],
      created_at: 'c',
      updated_at: 'u',
      request_body: '{"event":"ticket.created"}',
      request_body_truncated: false,
    });
  });
});
