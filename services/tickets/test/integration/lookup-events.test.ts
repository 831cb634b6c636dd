/**
 * What the ticket service does with lookup's events (tickets.lookup-events): CountTicketsInStatus,
 * and project.updated moving the tickets of a removed status (live and soft-deleted, in batches, to
 * the end of the target lane, idempotently) and forgetting cached projects and ticket types. The
 * handler runs here on the service's own stores and a lookup directory of its own, so each event is
 * delivered exactly when the test says; the last test goes through RabbitMQ as in production.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServiceClient, newDomainEvent, type ServiceClient } from '@tix/kit';
import {
  createTestVhost,
  eventually,
  freePort,
  startTestService,
  testLogger,
  type TestVhost,
  suiteFixture,
} from '@tix/kit/testing';
import { lookupService } from '@tix/lookup-service/server';
import type { DomainEvent, EventActor, lookup } from '@tix/protos';
import { createLookupDirectory } from '../../src/lookup/lookup-directory.js';
import { createLookupEventHandler } from '../../src/lookup-events/lookup-event-consumer.js';
import { createStatusTicketsStore } from '../../src/lookup-events/status-tickets-store.js';
import { startTestTicketServer } from '../../src/testing.js';
import { createTicketWriteStore } from '../../src/tickets/ticket-write-store.js';
import { outboxMark, outboxSince, startTicketFixture, ticketsOf } from './support.js';

const TTLS = { projectMs: 60_000, ticketTypeMs: 60_000, userMs: 60_000 };

describe('tickets: lookup events (workflow changes)', () => {
  const f = suiteFixture(() => startTicketFixture());
  let project: lookup.Project__Output;
  let typeId: number;
  let slugCounter = 0;

  /** A fresh project with statuses open, review, done (closed) and one ticket type. */
  beforeEach(async () => {
    slugCounter += 1;
    project = await f.lookup.CreateProject({
      name: `Flow ${slugCounter}`,
      slug: `flow-${slugCounter}`,
      prefix: `FL${slugCounter}`,
      statuses: [
        { slug: 'open', label: 'Open' },
        { slug: 'review', label: 'In review' },
        { slug: 'done', label: 'Done', is_closed: true },
      ],
    });
    typeId = (
      await f.lookup.CreateTicketType({
        project_id: project.id,
        name: 'Task',
        slug: 'task',
        is_default: true,
      })
    ).id;
  });

  const admin = () => f.as(f.demo.users.admin, 'session');

  async function ticketIn(status: string, title = 'A ticket'): Promise<number> {
    const created = await f.client.CreateTicket(
      { project_id: project.id, ticket_type_id: typeId, title, custom_fields_json: '' },
      f.agent,
    );
    if (status !== 'open')
      await f.client.MoveTicket({ project_id: project.id, id: created.id, status }, f.agent);
    return created.id;
  }

  /** The handler over the service's database, with a lookup directory of its own (returned too). */
  function handler(batchSize?: number) {
    const directory = createLookupDirectory({ client: f.lookup, ttls: TTLS });
    const handle = createLookupEventHandler({
      lookup: directory,
      tickets: createStatusTicketsStore(f.sql),
      writes: createTicketWriteStore(f.sql),
      logger: testLogger('lookup-events'),
      ...(batchSize ? { batchSize } : {}),
    });
    return { directory, handle };
  }

  function projectUpdated(
    removed: { slug: string; moved_to: string | null }[],
    actorId: number | null,
    actor?: EventActor,
  ) {
    return newDomainEvent(
      'project.updated',
      { id: project.id, changed: ['statuses'], statuses_removed: removed, actor_id: actorId },
      { source: 'lookup', projectId: project.id, ...(actor ? { actor } : {}) },
    ) as DomainEvent;
  }

  async function rows(ids: number[]) {
    const { rows: found } = await f.sql.query<{
      id: number;
      status: string;
      version: number;
      updated_by: number | null;
      lane_rank: string;
      deleted: boolean;
    }>(
      `SELECT id, status, version, updated_by, lane_rank, deleted_at IS NOT NULL AS deleted
         FROM tickets WHERE id = ANY($1::int[]) ORDER BY id`,
      [ids],
    );
    return found;
  }

  it('CountTicketsInStatus counts live and soft-deleted tickets of the status', async () => {
    const [a, b] = [await ticketIn('review'), await ticketIn('review')];
    await ticketIn('open');
    await f.client.DeleteTicket({ project_id: project.id, id: b }, admin());
    expect(
      await f.client.CountTicketsInStatus({ project_id: project.id, status: 'review' }, admin()),
    ).to.deep.equal({ live: 1, deleted: 1 });
    expect(
      await f.client.CountTicketsInStatus({ project_id: project.id, status: 'nope' }, admin()),
    ).to.deep.equal({ live: 0, deleted: 0 });
    // A value that cannot be a status slug counts nothing (and never reaches SQL as something else).
    expect(
      await f.client.CountTicketsInStatus({ project_id: project.id, status: 'x\u0000y' }, admin()),
    ).to.deep.equal({ live: 0, deleted: 0 });
    expect(a).to.be.a('number');
  });

  it('moves every ticket of a removed status, in batches, to the end of the target lane, once', async () => {
    const inReview = [];
    for (let n = 0; n < 5; n++) inReview.push(await ticketIn('review', `Review ${n}`));
    const alreadyOpen = await ticketIn('open', 'Already open');
    await f.client.DeleteTicket({ project_id: project.id, id: inReview[4]! }, admin());
    const before = await rows([...inReview, alreadyOpen]);

    await f.lookup.RemoveProjectStatus({ project_id: project.id, slug: 'review', move_to: 'open' }, admin());
    const mark = await outboxMark(f.sql);
    const { handle } = handler(2);
    await handle(projectUpdated([{ slug: 'review', moved_to: 'open' }], f.demo.users.admin.id));

    const after = await rows([...inReview, alreadyOpen]);
    for (const row of after) expect(row.status, `ticket ${row.id}`).to.equal('open');
    const moved = after.filter((row) => row.id !== alreadyOpen);
    for (const row of moved) {
      const was = before.find((each) => each.id === row.id)!;
      expect(row.version).to.equal(was.version + 1);
      expect(row.updated_by).to.equal(f.demo.users.admin.id);
    }
    // The ticket already in the lane keeps its place; the moved live ones come after it, in id order.
    const lane = after.filter((row) => !row.deleted).sort((x, y) => (x.lane_rank < y.lane_rank ? -1 : 1));
    expect(lane.map((row) => row.id)).to.deep.equal([alreadyOpen, ...inReview.slice(0, 4)]);
    expect(after.find((row) => row.id === alreadyOpen)!.version).to.equal(
      before.find((row) => row.id === alreadyOpen)!.version,
    );

    // Live tickets announce the move as any move does; the soft-deleted one moves silently.
    const events = await outboxSince(f.sql, mark);
    const statusChanged = events.filter((event) => event.event_type === 'ticket.status_changed');
    expect(statusChanged.map((event) => (event.payload.data as { id: number }).id).sort()).to.deep.equal(
      inReview.slice(0, 4).sort(),
    );
    expect(events.filter((event) => event.event_type === 'ticket.updated')).to.have.length(4);
    expect(statusChanged[0]!.payload.data).to.include({ status: 'open', status_label: 'Open' });
    // The event has no v1.1 actor, so the user in its data is the actor of every move.
    for (const event of events) {
      expect(event.payload).to.deep.include({
        actor: { kind: 'user', user_id: f.demo.users.admin.id, api_key_id: null },
        changes: { status: { from: 'review', to: 'open' } },
      });
    }
    expect(
      await f.client.CountTicketsInStatus({ project_id: project.id, status: 'review' }, admin()),
    ).to.deep.equal({ live: 0, deleted: 0 });

    // Redelivered: nothing left to move, nothing written.
    const again = await outboxMark(f.sql);
    await handle(projectUpdated([{ slug: 'review', moved_to: 'open' }], f.demo.users.admin.id));
    expect(await outboxSince(f.sql, again)).to.deep.equal([]);
    expect(await rows([...inReview, alreadyOpen])).to.deep.equal(after);
  });

  it('without moved_to (or when it no longer exists) uses the first status of the workflow as lookup has it now', async () => {
    const deleted = await ticketIn('review');
    await f.client.DeleteTicket({ project_id: project.id, id: deleted }, admin());
    const live = await ticketIn('done');
    // The workflow now: open, done; later reordered so that "open" is still first.
    await f.lookup.RemoveProjectStatus({ project_id: project.id, slug: 'review', move_to: 'open' }, admin());
    await f.lookup.AddProjectStatus(
      { project_id: project.id, status: { slug: 'triage', label: 'Triage' }, position: 0 },
      admin(),
    );
    const { handle } = handler();
    await handle(projectUpdated([{ slug: 'review', moved_to: null }], null));
    const [row] = await rows([deleted]);
    expect(row).to.include({ status: 'triage', deleted: true, updated_by: null });

    // A target removed since: the first status again.
    await f.sql.query(`UPDATE tickets SET status = 'gone' WHERE id = $1`, [live]);
    const mark = await outboxMark(f.sql);
    // A v1.1 event names its actor itself: the moves carry it (an API key here, not actor_id).
    const actor: EventActor = { kind: 'api_key', user_id: f.demo.users.admin.id, api_key_id: 7 };
    await handle(projectUpdated([{ slug: 'gone', moved_to: 'also_gone' }], null, actor));
    expect((await rows([live]))[0]).to.include({ status: 'triage', deleted: false });
    const events = await outboxSince(f.sql, mark);
    expect(events.map((event) => event.event_type)).to.deep.equal([
      'ticket.updated',
      'ticket.status_changed',
    ]);
    for (const event of events) expect(event.payload).to.deep.include({ actor });
  });

  it('leaves a status that exists again (removed, then added back) alone', async () => {
    const id = await ticketIn('review');
    const { handle } = handler();
    await handle(projectUpdated([{ slug: 'review', moved_to: 'open' }], null));
    expect((await rows([id]))[0]).to.include({ status: 'review' });
  });

  it('forgets the cached project and ticket type, so the next read asks lookup', async () => {
    const { directory, handle } = handler();
    const caller = { correlationId: randomUUID(), principal: null };
    expect((await directory.project(project.id, caller)).statuses.map((s) => s.slug)).to.deep.equal([
      'open',
      'review',
      'done',
    ]);
    await f.lookup.AddProjectStatus({ project_id: project.id, status: { slug: 'qa', label: 'QA' } }, admin());
    // Cached: still the old workflow.
    expect((await directory.project(project.id, caller)).statuses).to.have.length(3);
    await handle(projectUpdated([], null));
    expect((await directory.project(project.id, caller)).statuses.map((s) => s.slug)).to.deep.equal([
      'open',
      'review',
      'done',
      'qa',
    ]);

    expect(await directory.ticketType(project.id, typeId, caller)).to.include({ id: typeId });
    await f.lookupSql.query('DELETE FROM ticket_types WHERE id = $1', [typeId]);
    expect(await directory.ticketType(project.id, typeId, caller)).to.not.equal(null);
    await handle(
      newDomainEvent(
        'ticket_type.updated',
        { id: typeId, project_id: project.id, changed: ['name'] },
        { source: 'lookup', projectId: project.id },
      ),
    );
    expect(await directory.ticketType(project.id, typeId, caller)).to.equal(null);
  });
});

describe('tickets: lookup events through the broker', function () {
  this.timeout(60_000);
  let vhost: TestVhost;
  let lookupServer: Awaited<ReturnType<typeof startTestService>>;
  let ticketServer: Awaited<ReturnType<typeof startTestTicketServer>>;
  let lookupClient: ServiceClient<'lookup'>;
  let ticketClient: ServiceClient<'tickets'>;

  before(async () => {
    vhost = await createTestVhost('tickets_lookup_events');
    const lookupPort = await freePort();
    // Each needs the other's address: the ticket service's client connects on first use.
    ticketServer = await startTestTicketServer({
      lookupAddress: `127.0.0.1:${lookupPort}`,
      amqpUrl: vhost.url,
    });
    lookupServer = await startTestService(lookupService(), {
      label: 'tickets_events_lookup',
      config: { grpcPort: lookupPort, peers: { tickets: ticketServer.address } },
      amqpUrl: vhost.url,
    });
    lookupClient = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    ticketClient = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
  });
  after(async () => {
    lookupClient?.close();
    ticketClient?.close();
    await ticketServer?.stop();
    await lookupServer?.stop();
    await vhost?.drop();
  });

  it('RemoveProjectStatus refuses while live tickets are in it, and with move_to they follow the event', async () => {
    const seeded = await lookupClient.SeedDemo({});
    const admin = seeded.users.find((user) => user.role === 'admin')!;
    const as = {
      principal: { kind: 'session' as const, user_id: admin.id, role: 'admin' as const, scopes: [] },
    };
    const project = await lookupClient.CreateProject({ name: 'Broker', slug: 'broker', prefix: 'BRK' });
    const type = await lookupClient.CreateTicketType({ project_id: project.id, name: 'Task', slug: 'task' });
    const ids: number[] = [];
    for (const title of ['One', 'Two', 'Three']) {
      const created = await ticketClient.CreateTicket(
        { project_id: project.id, ticket_type_id: type.id, title, custom_fields_json: '' },
        as,
      );
      await ticketClient.MoveTicket({ project_id: project.id, id: created.id, status: 'waiting' }, as);
      ids.push(created.id);
    }
    let refused: unknown;
    try {
      await lookupClient.RemoveProjectStatus({ project_id: project.id, slug: 'waiting' }, as);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.deep.include({
      kind: 'conflict',
      message: '3 tickets are in "Waiting"; choose a status to move them to (move_to)',
    });

    await lookupClient.RemoveProjectStatus(
      { project_id: project.id, slug: 'waiting', move_to: 'work_in_progress' },
      as,
    );
    await eventually(async () => {
      const board = await ticketClient.GetBoard({ project_id: project.id }, as);
      const lane = board.lanes.find((each) => each.status === 'work_in_progress');
      return (
        (lane ? ticketsOf(lane).length : 0) === 3 && board.lanes.every((each) => each.status !== 'waiting')
      );
    }, 20_000);
  });
});
