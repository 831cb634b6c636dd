/**
 * Idempotency-Key through real HTTP: gateways with limits wired in front of a fake ticket service
 * that counts CreateTicket calls (each call would be one ticket).
 */
import { expect } from 'chai';
import { suiteFixture } from '@tix/kit/testing';
import type { ticket } from '@tix/protos';
import { FULL_KEY, startFakeLookup } from '../support/fake-lookup.js';
import { startFakeTickets, ticketMessage } from '../support/fake-tickets.js';
import { READ_WRITE_KEY } from '../support/fake-ticket-gateway.js';
import { limitsGatewaysPerTest, testRedisPrefix, type LimitsGateway } from '../support/limits-gateway.js';
import { bearer } from '../support/test-gateway.js';
import { AppError } from '@tix/kit';

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

describe('Idempotency-Key on POST', function () {
  this.timeout(30_000);
  const lookup = suiteFixture(startFakeLookup);
  const tickets = suiteFixture(startFakeTickets);
  let nextId = 100;
  const { start: gateway } = limitsGatewaysPerTest(() => ({
    lookup: lookup.address,
    tickets: tickets.address,
  }));
  const create = async (
    instance: LimitsGateway,
    body: unknown,
    options: { key?: string; idempotencyKey?: string; query?: string } = {},
  ): Promise<RawResponse> => {
    const headers: Record<string, string> = {
      ...bearer(options.key ?? FULL_KEY),
      'Content-Type': 'application/json',
    };
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    const response = await fetch(`${instance.apiUrl}/v1/tickets${options.query ?? '?project_id=1'}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const BODY = { ticket_type_id: 2, title: 'Printer on fire', priority: 'high' };

  beforeEach(() => {
    // Every CreateTicket is a new ticket with a new id.
    tickets.override('CreateTicket', (request: ticket.CreateTicketRequest__Output) =>
      ticketMessage({ id: (nextId += 1), project_id: request.project_id, title: request.title }),
    );
    lookup.override('AuthenticateApiKey', (input: { key: string }) => {
      if (input.key === FULL_KEY)
        return { key_id: 1, user_id: 10, role: 'admin', scopes: ['tickets:read', 'tickets:write'] };
      if (input.key === READ_WRITE_KEY)
        return { key_id: 4, user_id: 10, role: 'agent', scopes: ['tickets:read', 'tickets:write'] };
      throw AppError.unauthenticated('API key is not valid');
    });
  });
  afterEach(() => {
    lookup.reset();
    tickets.reset();
  });

  it('replays the stored response byte for byte, marked, without creating again', async () => {
    const instance = await gateway();
    const first = await create(instance, BODY, { idempotencyKey: 'create-1' });
    expect(first.status).to.equal(201);
    expect(first.headers.get('idempotency-key')).to.equal('create-1');
    expect(first.headers.get('x-idempotency-replay')).to.equal(null);
    // Same payload with keys in another order is the same request.
    const again = await create(
      instance,
      { priority: 'high', title: 'Printer on fire', ticket_type_id: 2 },
      { idempotencyKey: 'create-1' },
    );
    expect(again.status).to.equal(201);
    expect(again.text).to.equal(first.text);
    expect(again.headers.get('x-idempotency-replay')).to.equal('true');
    expect(again.headers.get('idempotency-key')).to.equal('create-1');
    expect(again.headers.get('content-type')).to.equal(first.headers.get('content-type'));
    expect(again.headers.get('x-ratelimit-limit')).to.equal('100');
    expect(tickets.calls.CreateTicket).to.equal(1);
    // Without the key (or with another), a POST creates as usual.
    expect((await create(instance, BODY)).status).to.equal(201);
    expect((await create(instance, BODY, { idempotencyKey: 'create-2' })).status).to.equal(201);
    expect(tickets.calls.CreateTicket).to.equal(3);
  });

  it('answers 409 for the same key with another payload (body or query)', async () => {
    const instance = await gateway();
    expect((await create(instance, BODY, { idempotencyKey: 'k' })).status).to.equal(201);
    for (const attempt of [
      () => create(instance, { ...BODY, title: 'Another' }, { idempotencyKey: 'k' }),
      () => create(instance, BODY, { idempotencyKey: 'k', query: '?project_id=2' }),
    ]) {
      const conflict = await attempt();
      expect(conflict.status).to.equal(409);
      expect(JSON.parse(conflict.text)).to.deep.equal({
        ok: false,
        error: { code: 409, message: 'Idempotency-Key was already used with a different request' },
      });
    }
    expect(tickets.calls.CreateTicket).to.equal(1);
  });

  it('20 concurrent POSTs with one key create exactly one ticket; the rest are 409 or replays', async () => {
    const instance = await gateway();
    tickets.override(
      'CreateTicket',
      (request: ticket.CreateTicketRequest__Output) =>
        new Promise((resolve) =>
          setTimeout(() => resolve(ticketMessage({ id: (nextId += 1), title: request.title })), 200),
        ),
    );
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => create(instance, BODY, { idempotencyKey: 'burst' })),
    );
    expect(tickets.calls.CreateTicket).to.equal(1);
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).to.have.length.greaterThanOrEqual(1);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      String(statuses),
    ).to.equal(true);
    const created = responses.filter((response) => response.status === 201);
    expect(new Set(created.map((response) => response.text)).size).to.equal(1);
    for (const conflict of responses.filter((response) => response.status === 409)) {
      expect(JSON.parse(conflict.text).error.message).to.match(/still in progress/);
    }
    // Afterwards every retry is a replay of that one ticket.
    const retry = await create(instance, BODY, { idempotencyKey: 'burst' });
    expect(retry.headers.get('x-idempotency-replay')).to.equal('true');
    expect(retry.text).to.equal(created[0]!.text);
    expect(tickets.calls.CreateTicket).to.equal(1);
  });

  it('does not store failures: a 422 (gateway or service) can be corrected and retried with the key', async () => {
    const instance = await gateway();
    const invalid = await create(instance, { ticket_type_id: 2 }, { idempotencyKey: 'fix-me' });
    expect(invalid.status).to.equal(422);
    tickets.override('CreateTicket', () => {
      throw AppError.validation({ custom_fields: ['severity is required'] });
    });
    const refused = await create(instance, BODY, { idempotencyKey: 'fix-me' });
    expect(refused.status).to.equal(422);
    tickets.override('CreateTicket', (request: ticket.CreateTicketRequest__Output) =>
      ticketMessage({ id: (nextId += 1), title: request.title }),
    );
    const corrected = await create(instance, BODY, { idempotencyKey: 'fix-me' });
    expect(corrected.status).to.equal(201);
    expect(corrected.headers.get('x-idempotency-replay')).to.equal(null);
  });

  it('scopes keys per API key: the same key from two API keys makes two tickets', async () => {
    const instance = await gateway();
    const a = await create(instance, BODY, { idempotencyKey: 'shared', key: FULL_KEY });
    const b = await create(instance, BODY, { idempotencyKey: 'shared', key: READ_WRITE_KEY });
    expect([a.status, b.status]).to.deep.equal([201, 201]);
    expect(b.headers.get('x-idempotency-replay')).to.equal(null);
    expect(JSON.parse(a.text).data.ticket.id).not.to.equal(JSON.parse(b.text).data.ticket.id);
    expect(tickets.calls.CreateTicket).to.equal(2);
  });

  it('replays across gateway replicas sharing Redis', async () => {
    const prefix = testRedisPrefix();
    const [a, b] = [await gateway({ redisKeyPrefix: prefix }), await gateway({ redisKeyPrefix: prefix })];
    const first = await create(a, BODY, { idempotencyKey: 'replica' });
    const second = await create(b, BODY, { idempotencyKey: 'replica' });
    expect(second.headers.get('x-idempotency-replay')).to.equal('true');
    expect(second.text).to.equal(first.text);
    expect(tickets.calls.CreateTicket).to.equal(1);
  });

  it('forgets a key after 1 hour (in-memory store, injected clock)', async () => {
    let now = Date.UTC(2026, 5, 1);
    const instance = await gateway({ redisUrl: null, now: () => now });
    const first = await create(instance, BODY, { idempotencyKey: 'hourly' });
    now += 3_600_000 - 1;
    expect(
      (await create(instance, BODY, { idempotencyKey: 'hourly' })).headers.get('x-idempotency-replay'),
    ).to.equal('true');
    now += 1;
    const later = await create(instance, BODY, { idempotencyKey: 'hourly' });
    expect(later.status).to.equal(201);
    expect(later.headers.get('x-idempotency-replay')).to.equal(null);
    expect(later.text).not.to.equal(first.text);
    expect(tickets.calls.CreateTicket).to.equal(2);
  });

  it('refuses a malformed key with 400 and ignores the header on other methods', async () => {
    const instance = await gateway();
    for (const bad of ['x'.repeat(256), 'caf\u00e9', '   ']) {
      const response = await create(instance, BODY, { idempotencyKey: bad });
      expect(response.status, JSON.stringify(bad)).to.equal(400);
      expect(JSON.parse(response.text)).to.deep.equal({
        ok: false,
        error: { code: 400, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
      });
    }
    expect((await create(instance, BODY, { idempotencyKey: 'x'.repeat(255) })).status).to.equal(201);
    const get = await fetch(`${instance.apiUrl}/v1/tickets/5?project_id=1`, {
      headers: { ...bearer(FULL_KEY), 'Idempotency-Key': 'caf\u00e9' },
    });
    expect(get.status).to.equal(200);
    expect(tickets.calls.CreateTicket).to.equal(1);
  });

  it('IDEMPOTENCY_ENABLED=false: the header is ignored', async () => {
    const instance = await gateway({ limits: { idempotencyEnabled: false } });
    await create(instance, BODY, { idempotencyKey: 'off' });
    const second = await create(instance, BODY, { idempotencyKey: 'off' });
    expect(second.headers.get('x-idempotency-replay')).to.equal(null);
    expect(tickets.calls.CreateTicket).to.equal(2);
  });
});
