/**
 * The SLA service against real PostgreSQL, RabbitMQ and lookup: clocks from the ticket and comment
 * events, each applied once and in version order, sla.* events at their instant through the
 * outbox, paused time not counting, timers that survive a restart (docs/sla.md, "The service").
 * Targets are minutes (the engine's unit): tickets are created in the recent past so that a
 * 1-minute target falls due a few seconds into the test.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import {
  createTestDatabase,
  createTestVhost,
  eventually,
  refusalOf,
  type TestDatabase,
  type TestVhost,
} from '@tix/kit/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { SLA_MIGRATIONS_DIR, startTestSlaServer, type TestSlaServer } from '../../src/testing.js';
import { commentEvent, hearSlaEvents, openPublisher, ticketEvent } from './support.js';

const SECOND = 1_000;

describe('sla service: clocks from events, timers', function () {
  this.timeout(120_000);
  let lookup: TestLookupServer;
  let vhost: TestVhost;
  let database: TestDatabase;
  let service: TestSlaServer;
  let client: ServiceClient<'sla'>;
  let publisher: Awaited<ReturnType<typeof openPublisher>>;
  let listener: Awaited<ReturnType<typeof hearSlaEvents>>;
  let sql: pg.Pool;
  let projectId: number;
  let otherProjectId: number;
  let nextTicket = 100;

  const start = async () => {
    service = await startTestSlaServer({
      lookupAddress: lookup.address,
      amqpUrl: vhost.url,
      databaseUrl: database.url,
    });
    client = createServiceClient('sla', service.address, { deadlineMs: 10_000 });
  };

  const sla = async (ticketId: number) => {
    const { tickets } = await client.GetTicketSla({ ticket_ids: [ticketId] });
    return tickets[0] ? (JSON.parse(tickets[0].sla_json) as Record<string, any>) : null;
  };
  const target = async (ticketId: number, kind: string) =>
    ((await sla(ticketId))?.targets as Record<string, any>[] | undefined)?.find((t) => t.target === kind);
  const applied = async (ticketId: number, version: number) => {
    const { rows } = await sql.query('SELECT last_version FROM ticket_clocks WHERE ticket_id = $1', [
      ticketId,
    ]);
    return rows[0]?.last_version === version;
  };
  const outboxCount = async (ticketId: number, type: string) => {
    const { rows } = await sql.query(
      "SELECT count(*)::int AS n FROM outbox_events WHERE event_type = $1 AND payload->'data'->>'ticket_id' = $2",
      [type, String(ticketId)],
    );
    return rows[0].n as number;
  };

  before(async () => {
    lookup = await startTestLookupServer({ label: 'sla_lookup' });
    const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
    projectId = (
      await lookupClient.CreateProject({
        name: 'Support',
        slug: 'support',
        prefix: 'SUP',
        description: '',
        statuses: [
          { slug: 'open', label: 'Open', is_closed: false },
          { slug: 'waiting', label: 'Waiting on customer', is_closed: false },
          { slug: 'closed', label: 'Closed', is_closed: true },
        ],
      })
    ).id;
    otherProjectId = (
      await lookupClient.CreateProject({
        name: 'Other',
        slug: 'other',
        prefix: 'OTH',
        description: '',
        statuses: [
          { slug: 'new', label: 'New', is_closed: false },
          { slug: 'done', label: 'Done', is_closed: true },
        ],
      })
    ).id;
    lookupClient.close();
    vhost = await createTestVhost('sla');
    database = await createTestDatabase('sla_clocks', SLA_MIGRATIONS_DIR);
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    await start();
    publisher = await openPublisher(vhost.url);
    listener = await hearSlaEvents(vhost.url);
    const calendar = await client.CreateCalendar({
      project_id: projectId,
      name: 'Always',
      calendar_json: JSON.stringify({ time_zone: 'UTC', always_open: true }),
    });
    await client.CreatePolicy({
      project_id: projectId,
      policy_json: JSON.stringify({
        name: 'Everything',
        calendar_id: calendar.id,
        filter: {},
        targets: {
          first_response: { minutes: 1, mode: 'business', pause_statuses: ['waiting'] },
          resolution: { minutes: 2, mode: 'calendar', warn_before_minutes: 1 },
        },
      }),
    });
  });

  after(async () => {
    client?.close();
    await listener?.close();
    await publisher?.close();
    await sql?.end();
    await service?.stop();
    await database?.drop();
    await vhost?.drop();
    await lookup?.stop();
  });

  it('refuses a bad calendar and a bad policy with every field error (INVALID_ARGUMENT)', async () => {
    expect(
      await refusalOf(
        client.CreateCalendar({
          project_id: projectId,
          name: 'Mars',
          calendar_json: JSON.stringify({ time_zone: 'Mars/Olympus_Mons', hours: { monday: [] } }),
        }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        time_zone: ['time_zone "Mars/Olympus_Mons" is not a known IANA time zone'],
        hours: ['a business calendar needs at least one working interval (or always_open)'],
      },
    });
    const refused = await refusalOf(
      client.CreatePolicy({
        project_id: projectId,
        policy_json: JSON.stringify({
          name: 'x',
          filter: {},
          targets: { first_response: { minutes: 0, mode: 'business' } },
        }),
      }),
    );
    expect(refused.kind).to.equal('validation_failed');
    expect(Object.keys(refused.validation_errors as object)).to.deep.equal([
      'targets.first_response.minutes',
    ]);
    expect(
      await refusalOf(client.CreateCalendar({ project_id: projectId, name: 'x', calendar_json: '{' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { calendar_json: ['calendar_json must be JSON'] },
    });
    expect((await client.ListPolicies({ project_id: projectId })).policies).to.have.length(1);
  });

  it('breaches a target once at its instant, warns before, and announces a target met', async () => {
    const id = nextTicket++;
    const created = new Date(Date.now() - 55 * SECOND);
    const ticket = { id, version: 1, status: 'open', priority: 'medium', created_at: created.toISOString() };
    await publisher.publish(ticketEvent('ticket.created', projectId, ticket, { at: created }));
    const due = created.getTime() + 60 * SECOND;

    const breach = await eventually(() => listener.of(id, 'sla.breached')[0], 20_000);
    expect(breach.data).to.include({ target: 'first_response', due_at: new Date(due).toISOString() });
    expect(breach.heardAt).to.be.at.least(due - 200);
    expect(breach.heardAt).to.be.below(due + 6 * SECOND);
    const warning = await eventually(() => listener.of(id, 'sla.warning')[0], 10_000);
    expect(warning.data).to.include({
      target: 'resolution',
      due_at: new Date(created.getTime() + 120 * SECOND).toISOString(),
    });

    // A staff reply after the breach meets it late: still breached, nothing more announced.
    await publisher.publish(commentEvent(projectId, id, { id: 9001, at: new Date(), author_type: 'staff' }));
    await eventually(async () => (await target(id, 'first_response'))?.met_at);
    expect((await target(id, 'first_response'))?.state).to.equal('breached');

    const closedAt = new Date();
    const close = ticketEvent(
      'ticket.status_changed',
      projectId,
      { ...ticket, version: 2, status: 'closed' },
      {
        at: closedAt,
        changes: { status: { from: 'open', to: 'closed' } },
        writeTypes: ['ticket.updated', 'ticket.status_changed'],
      },
    );
    await publisher.publish(close);
    const fulfilled = await eventually(() => listener.of(id, 'sla.fulfilled')[0], 10_000);
    expect(fulfilled.data).to.include({ target: 'resolution', met_at: closedAt.toISOString() });

    // Redelivered and older events change nothing and announce nothing twice.
    await publisher.publish(
      close,
      ticketEvent('ticket.updated', projectId, { ...ticket, version: 2, status: 'closed' }),
    );
    await publisher.publish(ticketEvent('ticket.created', projectId, ticket, { at: created }));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await outboxCount(id, 'sla.breached')).to.equal(1);
    expect(await outboxCount(id, 'sla.warning')).to.equal(1);
    expect(await outboxCount(id, 'sla.fulfilled')).to.equal(1);
    expect(
      listener
        .of(id)
        .map((event) => event.type)
        .sort(),
    ).to.deep.equal(['sla.breached', 'sla.fulfilled', 'sla.warning']);
    const { rows } = await sql.query('SELECT count(*)::int AS n FROM timers WHERE key LIKE $1', [
      `sla:%:${id}:%`,
    ]);
    expect(rows[0].n).to.equal(0);
  });

  it('does not count paused time: a ticket waiting on the customer is not breached', async () => {
    const id = nextTicket++;
    const created = new Date(Date.now() - 58 * SECOND);
    const ticket = {
      id,
      version: 1,
      status: 'waiting',
      priority: 'medium',
      created_at: created.toISOString(),
    };
    await publisher.publish(ticketEvent('ticket.created', projectId, ticket, { at: created }));
    await eventually(() => applied(id, 1));
    expect((await target(id, 'first_response'))?.state).to.equal('paused');
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(listener.of(id, 'sla.breached')).to.deep.equal([]);
    const paused = await target(id, 'first_response');
    expect(paused).to.include({ state: 'paused', elapsed_minutes: 0, due_at: null });

    const resumed = new Date();
    await publisher.publish(
      ticketEvent(
        'ticket.status_changed',
        projectId,
        { ...ticket, version: 2, status: 'open' },
        {
          at: resumed,
          changes: { status: { from: 'waiting', to: 'open' } },
        },
      ),
    );
    await eventually(() => applied(id, 2));
    expect(await target(id, 'first_response')).to.include({
      state: 'active',
      due_at: new Date(resumed.getTime() + 60 * SECOND).toISOString(),
    });
  });

  it('applies events once in version order: a later write arriving first, then the creation, then a repeat', async () => {
    const id = nextTicket++;
    const created = new Date(Date.now() - 30 * SECOND);
    const waitingAt = new Date(created.getTime() + 10 * SECOND);
    const ticket = { id, version: 1, status: 'open', priority: 'medium', created_at: created.toISOString() };
    const toWaiting = ticketEvent(
      'ticket.status_changed',
      projectId,
      { ...ticket, version: 2, status: 'waiting' },
      {
        at: waitingAt,
        changes: { status: { from: 'open', to: 'waiting' } },
      },
    );
    await publisher.publish(toWaiting);
    await eventually(() => applied(id, 2));
    await publisher.publish(ticketEvent('ticket.created', projectId, ticket, { at: created }), toWaiting);
    // A customer message and an internal note, the message delivered twice.
    const message = commentEvent(projectId, id, { id: 9101, at: new Date(), author_type: 'customer' });
    await publisher.publish(
      message,
      message,
      commentEvent(projectId, id, { id: 9102, at: new Date(), author_type: 'staff', is_internal: true }),
    );
    await eventually(async () => {
      const { rows } = await sql.query('SELECT history FROM ticket_clocks WHERE ticket_id = $1', [id]);
      return (rows[0]?.history as { ref: string }[] | undefined)?.some(
        (entry) => entry.ref === 'comment:9101',
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { rows } = await sql.query('SELECT last_version, history FROM ticket_clocks WHERE ticket_id = $1', [
      id,
    ]);
    expect(rows[0].last_version).to.equal(2);
    expect((rows[0].history as { type: string }[]).map((entry) => entry.type)).to.deep.equal([
      'created',
      'status_changed',
      'customer_message',
    ]);
    // Counted from creation to the move to waiting (10 s), nothing since.
    const firstResponse = await target(id, 'first_response');
    expect(firstResponse).to.include({ state: 'paused' });
    expect(firstResponse!.elapsed_minutes).to.be.closeTo(10 / 60, 1e-9);
  });

  it('fires a timer scheduled before a restart once, after the restart', async () => {
    const id = nextTicket++;
    const created = new Date(Date.now() - 52 * SECOND);
    const ticket = { id, version: 1, status: 'open', priority: 'medium', created_at: created.toISOString() };
    await publisher.publish(ticketEvent('ticket.created', projectId, ticket, { at: created }));
    await eventually(async () => {
      const { rows } = await sql.query('SELECT key FROM timers WHERE key LIKE $1', [
        `sla:breach:${id}:first_response:%`,
      ]);
      return rows.length === 1;
    });
    client.close();
    await service.stop();
    const due = created.getTime() + 60 * SECOND;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 1_000));
    expect(await outboxCount(id, 'sla.breached')).to.equal(0);
    await start();
    const breach = await eventually(() => listener.of(id, 'sla.breached')[0], 15_000);
    expect(breach.data).to.include({ target: 'first_response', due_at: new Date(due).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await outboxCount(id, 'sla.breached')).to.equal(1);
    expect(listener.of(id, 'sla.breached')).to.have.length(1);
  });

  it('follows a policy edit from the next event of a ticket: a target lowered below the elapsed time is breached then', async () => {
    const { id: policyId } = await client.CreatePolicy({
      project_id: otherProjectId,
      policy_json: JSON.stringify({
        name: 'Slow',
        calendar_id: null,
        filter: {},
        targets: { first_response: { minutes: 10, mode: 'calendar' } },
      }),
    });
    const id = nextTicket++;
    const created = new Date(Date.now() - 120 * SECOND);
    const ticket = { id, version: 1, status: 'new', priority: 'low', created_at: created.toISOString() };
    await publisher.publish(ticketEvent('ticket.created', otherProjectId, ticket, { at: created }));
    await eventually(() => applied(id, 1));
    expect(await target(id, 'first_response')).to.include({
      state: 'active',
      due_at: new Date(created.getTime() + 600 * SECOND).toISOString(),
    });
    await client.UpdatePolicy({
      project_id: otherProjectId,
      id: policyId,
      policy_json: JSON.stringify({
        name: 'Fast',
        calendar_id: null,
        filter: {},
        targets: { first_response: { minutes: 1, mode: 'calendar' } },
      }),
    });
    const messageAt = new Date();
    await publisher.publish(
      commentEvent(otherProjectId, id, { id: 9201, at: messageAt, author_type: 'customer' }),
    );
    const breach = await eventually(() => listener.of(id, 'sla.breached')[0], 10_000);
    expect(breach.data).to.include({ target: 'first_response', target_minutes: 1, policy_id: policyId });
    expect(Date.parse(breach.data.breached_at as string)).to.be.closeTo(messageAt.getTime(), 1_000);
  });

  it('keeps no clocks and no timers for a deleted ticket, and takes them up again on restore', async () => {
    const id = nextTicket++;
    const created = new Date(Date.now() - 5 * SECOND);
    const ticket = { id, version: 1, status: 'new', priority: 'low', created_at: created.toISOString() };
    const timers = async () =>
      (await sql.query('SELECT key FROM timers WHERE key LIKE $1', [`sla:%:${id}:%`])).rows.length;
    await publisher.publish(ticketEvent('ticket.created', otherProjectId, ticket, { at: created }));
    await eventually(async () => (await timers()) === 1);
    await publisher.publish(ticketEvent('ticket.deleted', otherProjectId, { ...ticket, version: 2 }));
    await eventually(() => applied(id, 2));
    expect(await sla(id)).to.equal(null);
    expect(await timers()).to.equal(0);
    await publisher.publish(
      ticketEvent(
        'ticket.updated',
        otherProjectId,
        { ...ticket, version: 3 },
        { writeTypes: ['ticket.updated', 'ticket.restored'] },
      ),
    );
    await eventually(() => applied(id, 3));
    expect((await target(id, 'first_response'))?.state).to.equal('active');
    expect(await timers()).to.equal(1);
  });
});
