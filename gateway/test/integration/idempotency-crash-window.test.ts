/**
 * The idempotency crash window (notes A.2, test I6): a gateway that dies after the ticket service
 * committed a create but before it stored the response loses its record, and the client's retry
 * reaches a gateway that knows nothing of the key. The claimed key travels down with CreateTicket
 * (gRPC metadata), and the real ticket service answers the retry with the first ticket.
 */
import { expectError } from '@tix/kit/testing';
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { startFakeTickets, type FakeTickets } from '../support/fake-tickets.js';
import {
  deleteRedisKeys,
  limitsGatewaysPerTest,
  startLimitsGateway,
  testRedisPrefix,
  type LimitsGateway,
} from '../support/limits-gateway.js';
import { bearer } from '../support/test-gateway.js';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: { ok: boolean; data?: { ticket: { id: number } }; error?: { code: number; message: string } };
}

async function post(
  gateway: LimitsGateway,
  pathAndQuery: string,
  apiKey: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<Answer> {
  const headers: Record<string, string> = { ...bearer(apiKey), 'Content-Type': 'application/json' };
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  const response = await fetch(`${gateway.apiUrl}${pathAndQuery}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: JSON.parse(text) as Answer['body'],
  };
}

describe('idempotency crash window: gateway record lost, real ticket service', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let admin: ServiceClient<'lookup'>;
  let tickets: Awaited<ReturnType<typeof startTestTicketServer>>;
  let ticketsSql: pg.Pool;
  let apiKey: string;
  let createPath: string;
  let typeId: number;
  /** crash(): the gateway process dies: its listeners and, for the memory store, every record go with it. */
  const { start: gateway, crash } = limitsGatewaysPerTest(() => ({
    lookup: lookup.address,
    tickets: tickets.address,
  }));
  const ticketsTitled = async (title: string) => {
    const { rows } = await ticketsSql.query<{ id: number }>('SELECT id FROM tickets WHERE title = $1', [
      title,
    ]);
    return rows.map((row) => row.id);
  };

  before(async () => {
    lookup = await startTestLookupServer({ label: 'gateway_idem_crash' });
    admin = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
    const project = await admin.CreateProject({
      name: 'Crash',
      slug: 'crash',
      prefix: 'CRS',
      description: '',
    });
    const type = await admin.CreateTicketType({
      project_slug: 'crash',
      name: 'Task',
      slug: 'task',
      description: '',
      is_default: true,
      field_schema_json: '[]',
    });
    await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' });
    apiKey = (
      await admin.CreateApiKey({
        user_email: 'ada@example.com',
        scopes: ['tickets:read', 'tickets:write'],
        name: 'crash window',
      })
    ).key;
    createPath = `/v1/tickets?project_id=${project.id}`;
    typeId = type.id;
    tickets = await startTestTicketServer({ lookupAddress: lookup.address, label: 'gateway_idem_crash' });
    ticketsSql = new pg.Pool({ connectionString: tickets.databaseUrl, max: 2 });
  });
  after(async () => {
    await ticketsSql?.end();
    admin?.close();
    await tickets?.stop();
    await lookup?.stop();
  });

  it('Redis: record deleted and gateway restarted, the retry gets 201 with the same ticket; one ticket', async () => {
    const prefix = testRedisPrefix();
    const body = { ticket_type_id: typeId, title: 'Crash window (Redis)', priority: 'high' };
    const first = await gateway({ redisKeyPrefix: prefix });
    const created = await post(first, createPath, apiKey, body, 'crash-redis');
    expect(created.status, created.text).to.equal(201);
    // The gateway dies after the ticket service committed, before the response was stored.
    await crash(first);
    await deleteRedisKeys(prefix);

    const restarted = await gateway({ redisKeyPrefix: prefix });
    const retry = await post(restarted, createPath, apiKey, body, 'crash-redis');
    expect(retry.status, retry.text).to.equal(201);
    expect(retry.body.data!.ticket.id).to.equal(created.body.data!.ticket.id);
    expect(retry.headers.get('idempotency-key')).to.equal('crash-redis');
    expect(await ticketsTitled(body.title)).to.deep.equal([created.body.data!.ticket.id]);
    // The restarted gateway stored that answer: the next retry is its replay.
    const replay = await post(restarted, createPath, apiKey, body, 'crash-redis');
    expect(replay.headers.get('x-idempotency-replay')).to.equal('true');
    expect(replay.text).to.equal(retry.text);
  });

  it('memory store: a restarted gateway forgot everything, the service still answers the first ticket', async () => {
    const body = { ticket_type_id: typeId, title: 'Crash window (memory)' };
    const first = await gateway({ redisUrl: null });
    const created = await post(first, createPath, apiKey, body, 'crash-memory');
    expect(created.status, created.text).to.equal(201);
    await crash(first);

    const restarted = await gateway({ redisUrl: null });
    const retries = await Promise.all(
      Array.from({ length: 5 }, () => post(restarted, createPath, apiKey, body, 'crash-memory')),
    );
    for (const retry of retries) {
      // One of them runs, the others are its replay or 409 (still in progress); never a new ticket.
      expect([201, 409], retry.text).to.include(retry.status);
      if (retry.status === 201) expect(retry.body.data!.ticket.id).to.equal(created.body.data!.ticket.id);
    }
    expect(retries.some((retry) => retry.status === 201)).to.equal(true);
    expect(await ticketsTitled(body.title)).to.deep.equal([created.body.data!.ticket.id]);
  });

  it('after the loss, the same key with another payload is 409 from the service; nothing is created', async () => {
    const body = { ticket_type_id: typeId, title: 'Crash window (mismatch)' };
    const first = await gateway({ redisUrl: null });
    expect((await post(first, createPath, apiKey, body, 'crash-mismatch')).status).to.equal(201);
    await crash(first);

    const restarted = await gateway({ redisUrl: null });
    const changed = { ...body, title: 'Crash window (mismatch, changed)' };
    const conflict = await post(restarted, createPath, apiKey, changed, 'crash-mismatch');
    expectError(conflict, 409, 'Idempotency-Key was already used with a different request');
    expect(await ticketsTitled(changed.title)).to.deep.equal([]);
    // The 409 was not stored: the original payload still gets its ticket.
    const original = await post(restarted, createPath, apiKey, body, 'crash-mismatch');
    expect(original.status).to.equal(201);
    expect(await ticketsTitled(body.title)).to.have.length(1);
  });

  it('without a key, or with another key, the same POST creates again', async () => {
    const body = { ticket_type_id: typeId, title: 'Crash window (unkeyed)' };
    const instance = await gateway({ redisUrl: null });
    for (const key of [undefined, undefined, 'other-1', 'other-2']) {
      expect((await post(instance, createPath, apiKey, body, key)).status).to.equal(201);
    }
    expect(await ticketsTitled(body.title)).to.have.length(4);
  });
});

describe('idempotency metadata on service calls (fake services)', function () {
  this.timeout(30_000);
  let lookup: FakeLookup;
  let tickets: FakeTickets;
  let instance: LimitsGateway;

  before(async () => {
    lookup = await startFakeLookup();
    tickets = await startFakeTickets();
    instance = await startLimitsGateway({
      services: { lookup: lookup.address, tickets: tickets.address },
      redisUrl: null,
    });
  });
  after(async () => {
    await instance.close();
    await tickets.stop();
    await lookup.stop();
  });

  const BODY = { ticket_type_id: 2, title: 'Printer on fire' };
  const sent = () => tickets.lastContext.CreateTicket!.idempotency;

  it('CreateTicket carries the claimed scope and fingerprint (sha256 hex); none without a key', async () => {
    expect((await post(instance, '/v1/tickets?project_id=1', FULL_KEY, BODY, 'meta-1')).status).to.equal(201);
    const first = sent();
    expect(first).to.not.equal(null);
    expect(first!.scope).to.match(/^[0-9a-f]{64}$/);
    expect(first!.fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(first!.scope).to.not.equal(first!.fingerprint);

    await post(instance, '/v1/tickets?project_id=1', FULL_KEY, { ...BODY, title: 'Other' }, 'meta-2');
    const second = sent();
    expect(second!.scope).to.not.equal(first!.scope);
    expect(second!.fingerprint).to.not.equal(first!.fingerprint);

    await post(instance, '/v1/tickets?project_id=1', FULL_KEY, BODY);
    expect(sent()).to.equal(null);
  });

  it('a request replayed by the gateway does not reach the service', async () => {
    const before = tickets.calls.CreateTicket ?? 0;
    await post(instance, '/v1/tickets?project_id=1', FULL_KEY, BODY, 'meta-replay');
    const replay = await post(instance, '/v1/tickets?project_id=1', FULL_KEY, BODY, 'meta-replay');
    expect(replay.headers.get('x-idempotency-replay')).to.equal('true');
    expect(tickets.calls.CreateTicket).to.equal(before + 1);
  });
});
