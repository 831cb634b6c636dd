/**
 * What the ticket service does with the customer service's customer.merged
 * (tickets.customer-events): the tickets naming a merged customer as requester or in the cc name
 * the target instead, deduplicated, live and soft-deleted, in batches, with one ticket.updated per
 * live ticket carrying who merged; a redelivered event writes nothing. The handler runs here on the
 * service's own stores, so each event is delivered exactly when the test says; the last test merges
 * through a real customer service and RabbitMQ as in production.
 */
import { expect } from 'chai';
import { createServiceClient, newDomainEvent, type ServiceClient } from '@tix/kit';
import {
  createTestVhost,
  eventually,
  freePort,
  startTestService,
  suiteFixture,
  testLogger,
  type TestVhost,
} from '@tix/kit/testing';
import { startTestCustomerServer, type TestCustomerServer } from '@tix/customer-service/testing';
import { lookupService } from '@tix/lookup-service/server';
import type { DomainEvent, EventActor } from '@tix/protos';
import {
  createCustomerEventHandler,
  isTransientCustomerEventError,
  UnreadableCustomerEvent,
} from '../../src/customer-events/customer-event-consumer.js';
import { createCustomerTicketsStore } from '../../src/customer-events/customer-tickets-store.js';
import { repointedState } from '../../src/customer-events/repoint-customer.js';
import { createLookupDirectory } from '../../src/lookup/lookup-directory.js';
import { startTestTicketServer } from '../../src/testing.js';
import { createTicketWriteStore } from '../../src/tickets/ticket-write-store.js';
import {
  outboxMark,
  outboxSince,
  questionTicket,
  startTicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

const TTLS = { projectMs: 60_000, ticketTypeMs: 60_000, userMs: 60_000 };

describe('tickets: customer events (merged customers)', function () {
  this.timeout(120_000);
  const f = suiteFixture(() => startTicketFixture());
  // Customer ids of the customer service; fresh per test, so tests never see each other's tickets.
  let next = 10_000;
  const ids = (count: number) => Array.from({ length: count }, () => ++next);

  const admin = () => f.as(f.demo.users.admin, 'session');
  const merger: () => EventActor = () => ({ kind: 'user', user_id: f.demo.users.lead.id, api_key_id: null });

  function handler(batchSize?: number) {
    return createCustomerEventHandler({
      lookup: createLookupDirectory({ client: f.lookup, ttls: TTLS }),
      tickets: createCustomerTicketsStore(f.sql),
      writes: createTicketWriteStore(f.sql),
      logger: testLogger('customer-events'),
      ...(batchSize ? { batchSize } : {}),
    });
  }

  function merged(target: number, source: number, mergedIds: number[] = [source], actor = merger()) {
    return newDomainEvent(
      'customer.merged',
      { id: target, name: 'Target', emails: [], source_id: source, merged_ids: mergedIds },
      { source: 'customers', actor },
    ) as DomainEvent;
  }

  async function ticket(requesterId: number | null, cc: number[], project = f.demo.support.id) {
    const typeId = project === f.demo.support.id ? f.demo.types.question.id : f.demo.types.task.id;
    return ticketOf(
      await f.client.CreateTicket(
        questionTicket(f.demo, {
          project_id: project,
          ticket_type_id: typeId,
          ...(requesterId === null ? {} : { requester_id: requesterId }),
          cc,
        }),
        f.agent,
      ),
    ).id;
  }

  async function rows(ticketIds: number[]) {
    const { rows: found } = await f.sql.query<{
      id: number;
      requester_id: number | null;
      cc: number[];
      version: number;
      updated_by: number | null;
    }>(
      `SELECT id, requester_id, cc, version, updated_by FROM tickets WHERE id = ANY($1::int[]) ORDER BY id`,
      [ticketIds],
    );
    return found;
  }

  it('replaces the merged customer as requester and in the cc, each customer once, the requester never in the cc', () => {
    const merged = new Set([1, 2]);
    const state = (requesterId: number | null, cc: number[]) => ({
      title: 't',
      description: null,
      status: 'open',
      priority: 'medium' as const,
      assignedTo: null,
      customFields: {},
      tags: [],
      resolutionType: null,
      mergedIntoId: null,
      requesterId,
      cc,
    });
    const after = (requesterId: number | null, cc: number[]) => {
      const next = repointedState(state(requesterId, cc), merged, 9);
      return { requester_id: next.requesterId, cc: next.cc };
    };
    expect(after(1, [5])).to.deep.equal({ requester_id: 9, cc: [5] });
    expect(after(1, [9, 5])).to.deep.equal({ requester_id: 9, cc: [5] });
    expect(after(9, [1, 5])).to.deep.equal({ requester_id: 9, cc: [5] });
    expect(after(5, [9, 1, 2, 6])).to.deep.equal({ requester_id: 5, cc: [9, 6] });
    expect(after(5, [6, 2, 9])).to.deep.equal({ requester_id: 5, cc: [6, 9] });
    expect(after(null, [2])).to.deep.equal({ requester_id: null, cc: [9] });
    expect(after(5, [6])).to.deep.equal({ requester_id: 5, cc: [6] });
  });

  it('re-points every ticket of the merged customers in every project, in batches, with events, once', async () => {
    const [a, b, older, x, y] = ids(5);
    const t = {
      asks: await ticket(a!, [x!]),
      targetAsksSourceCopied: await ticket(b!, [a!, x!]),
      sourceAsksTargetCopied: await ticket(a!, [b!, x!]),
      bothCopied: await ticket(x!, [a!, b!]),
      copiedAmongOthers: await ticket(x!, [y!, a!]),
      olderTombstone: await ticket(older!, []),
      otherProject: await ticket(a!, [], f.demo.platform.id),
      deleted: await ticket(a!, [y!]),
      unrelated: await ticket(x!, [y!]),
      targetOnly: await ticket(b!, []),
    };
    await f.client.DeleteTicket({ project_id: f.demo.support.id, id: t.deleted }, admin());
    const all = Object.values(t);
    const before = new Map((await rows(all)).map((row) => [row.id, row]));

    const mark = await outboxMark(f.sql);
    const handle = handler(3);
    await handle(merged(b!, a!, [a!, older!]));

    const after = new Map((await rows(all)).map((row) => [row.id, row]));
    const expected: Record<keyof typeof t, { requester_id: number; cc: number[] }> = {
      asks: { requester_id: b!, cc: [x!] },
      targetAsksSourceCopied: { requester_id: b!, cc: [x!] },
      sourceAsksTargetCopied: { requester_id: b!, cc: [x!] },
      bothCopied: { requester_id: x!, cc: [b!] },
      copiedAmongOthers: { requester_id: x!, cc: [y!, b!] },
      olderTombstone: { requester_id: b!, cc: [] },
      otherProject: { requester_id: b!, cc: [] },
      deleted: { requester_id: b!, cc: [y!] },
      unrelated: { requester_id: x!, cc: [y!] },
      targetOnly: { requester_id: b!, cc: [] },
    };
    const untouched = new Set([t.unrelated, t.targetOnly]);
    for (const [name, id] of Object.entries(t)) {
      const row = after.get(id)!;
      expect({ requester_id: row.requester_id, cc: row.cc }, name).to.deep.equal(
        expected[name as keyof typeof t],
      );
      const was = before.get(id)!;
      if (untouched.has(id)) expect(row, name).to.deep.equal(was);
      else {
        expect(row.version, name).to.equal(was.version + 1);
        expect(row.updated_by, name).to.equal(f.demo.users.lead.id);
      }
    }

    // One ticket.updated per changed live ticket (the deleted one changes silently), with the
    // merge's actor and the changed fields; its data is the ticket as the API shows it.
    const events = await outboxSince(f.sql, mark);
    expect(events.every((event) => event.event_type === 'ticket.updated')).to.equal(true);
    const changedLive = all.filter((id) => !untouched.has(id) && id !== t.deleted);
    const byTicket = new Map(events.map((event) => [(event.payload.data as { id: number }).id, event]));
    expect([...byTicket.keys()].sort((p, q) => p - q)).to.deep.equal(changedLive.sort((p, q) => p - q));
    expect(events).to.have.length(changedLive.length);
    expect(byTicket.get(t.asks)!.payload).to.deep.include({
      actor: merger(),
      changes: { requester_id: { from: a, to: b } },
      write_types: ['ticket.updated'],
      project_id: f.demo.support.id,
    });
    expect(byTicket.get(t.asks)!.payload.data).to.include({
      requester_id: b,
      version: after.get(t.asks)!.version,
    });
    expect(byTicket.get(t.bothCopied)!.payload.changes).to.deep.equal({ cc: { from: [a, b], to: [b] } });
    expect(byTicket.get(t.sourceAsksTargetCopied)!.payload.changes).to.deep.equal({
      requester_id: { from: a, to: b },
      cc: { from: [b, x], to: [x] },
    });
    expect(byTicket.get(t.otherProject)!.payload).to.include({ project_id: f.demo.platform.id });

    // GET /customers/{b}/tickets lists by requester or cc: the merged customer's tickets are b's now.
    const listed = await f.client.ListTickets(
      { project_id: f.demo.support.id, customer_id: b!, sort: '+id', page: { per_page: 100 } },
      f.agent,
    );
    const listedIds = ticketsOf(listed).map((each) => each.id);
    expect(listedIds).to.include.members([t.asks, t.bothCopied, t.copiedAmongOthers, t.olderTombstone]);
    const ofA = await f.client.ListTickets(
      { project_id: f.demo.support.id, customer_id: a!, page: { per_page: 100 } },
      f.agent,
    );
    expect(ticketsOf(ofA)).to.deep.equal([]);

    // Redelivered: nothing left naming a merged id, nothing written.
    const again = await outboxMark(f.sql);
    await handle(merged(b!, a!, [a!, older!]));
    expect(await outboxSince(f.sql, again)).to.deep.equal([]);
    expect(await rows(all)).to.deep.equal([...after.values()].sort((p, q) => p.id - q.id));
  });

  it('re-points thousands of tickets in transactions of one batch each, not one giant one', async () => {
    const [a, b] = ids(2);
    const count = 1_100;
    const created: number[] = [];
    for (let start = 0; start < count; start += 50) {
      const chunk = Array.from({ length: Math.min(50, count - start) }, () => ticket(a!, []));
      created.push(...(await Promise.all(chunk)));
    }
    const mark = await outboxMark(f.sql);
    await handler()(merged(b!, a!));
    const after = await rows(created);
    expect(after.every((row) => row.requester_id === b && row.version === 2)).to.equal(true);
    expect(await outboxSince(f.sql, mark)).to.have.length(count);
    // Each batch of REPOINT_BATCH_SIZE (500) committed on its own: 3 transactions wrote the rows.
    const { rows: writers } = await f.sql.query<{ transactions: number }>(
      'SELECT count(DISTINCT xmin::text)::int AS transactions FROM tickets WHERE id = ANY($1::int[])',
      [created],
    );
    expect(writers[0]!.transactions).to.equal(3);
  });

  it('dead-letters an event it cannot act on and retries one that may pass', async () => {
    const handle = handler();
    const unreadable = [
      newDomainEvent('customer.merged', { id: 5 }, { source: 'customers' }),
      newDomainEvent('customer.merged', { id: 5, source_id: 'x' }, { source: 'customers' }),
      newDomainEvent('customer.merged', { id: 5, source_id: 6, merged_ids: [6, 5] }, { source: 'customers' }),
      newDomainEvent('customer.merged', { id: 5, source_id: 6, merged_ids: [0] }, { source: 'customers' }),
      newDomainEvent('customer.merged', { id: 5, source_id: 6, merged_ids: 'all' }, { source: 'customers' }),
    ];
    for (const event of unreadable) {
      let failure: unknown;
      try {
        await handle(event);
      } catch (error) {
        failure = error;
      }
      expect(failure, JSON.stringify(event.data)).to.be.instanceOf(UnreadableCustomerEvent);
      expect(isTransientCustomerEventError(failure)).to.equal(false);
    }
    expect(isTransientCustomerEventError(Object.assign(new Error('down'), { code: '57P01' }))).to.equal(true);
    expect(isTransientCustomerEventError(Object.assign(new Error('bad'), { code: '22P02' }))).to.equal(false);
    // Another type on the queue is no work.
    await handle(newDomainEvent('project.updated', { id: 1 }, { source: 'lookup' }));
  });
});

describe('tickets: customer merges through the broker', function () {
  this.timeout(60_000);
  let vhost: TestVhost;
  let lookupServer: Awaited<ReturnType<typeof startTestService>>;
  let ticketServer: Awaited<ReturnType<typeof startTestTicketServer>>;
  let customerServer: TestCustomerServer;
  let lookupClient: ServiceClient<'lookup'>;
  let ticketClient: ServiceClient<'tickets'>;
  let customerClient: ServiceClient<'customers'>;

  before(async () => {
    vhost = await createTestVhost('tickets_customer_events');
    const lookupPort = await freePort();
    ticketServer = await startTestTicketServer({
      lookupAddress: `127.0.0.1:${lookupPort}`,
      amqpUrl: vhost.url,
    });
    lookupServer = await startTestService(lookupService(), {
      label: 'tickets_customers_lookup',
      config: { grpcPort: lookupPort, peers: { tickets: ticketServer.address } },
    });
    customerServer = await startTestCustomerServer({ label: 'tickets_customers', amqpUrl: vhost.url });
    lookupClient = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    ticketClient = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
    customerClient = createServiceClient('customers', customerServer.address, { deadlineMs: 10_000 });
  });
  after(async () => {
    lookupClient?.close();
    ticketClient?.close();
    customerClient?.close();
    await customerServer?.stop();
    await ticketServer?.stop();
    await lookupServer?.stop();
    await vhost?.drop();
  });

  it("MergeCustomers makes the source's tickets the target's", async () => {
    const seeded = await lookupClient.SeedDemo({});
    const lead = seeded.users.find((user) => user.role === 'team_lead')!;
    const as = {
      principal: { kind: 'session' as const, user_id: lead.id, role: 'team_lead' as const, scopes: [] },
    };
    const project = seeded.projects.find((each) => each.slug === 'support')!;
    const type = seeded.ticket_types.find((each) => each.project_id === project.id)!;
    const source = await customerClient.CreateCustomer({
      name: 'Ada',
      emails: ['ada@old.example'],
      notes: '',
    });
    const target = await customerClient.CreateCustomer({
      name: 'Ada L',
      emails: ['ada@new.example'],
      notes: '',
    });
    const created = ticketOf(
      await ticketClient.CreateTicket(
        {
          project_id: project.id,
          ticket_type_id: type.id,
          title: 'Mine',
          custom_fields_json: '',
          requester_id: source.id,
        },
        as,
      ),
    );
    await customerClient.MergeCustomers({ source_id: source.id, target_id: target.id }, as);
    const moved = await eventually(async () => {
      const got = ticketOf(await ticketClient.GetTicket({ project_id: project.id, id: created.id }, as));
      return got.requester_id === target.id ? got : undefined;
    }, 20_000);
    expect(moved).to.include({ version: created.version + 1, updated_by: lead.id });
  });
});
