import { expect } from 'chai';
import { type ticket, type TicketJson } from '@tix/protos';
import {
  outboxMark,
  outboxSince,
  questionTicket,
  refusalOf,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

describe('tickets: BulkUpdateTickets', () => {
  let f: TicketFixture;
  let project: number;

  const bulk = (request: Omit<ticket.BulkUpdateTicketsRequest, 'project_id'>, projectId = project) =>
    f.client.BulkUpdateTickets({ project_id: projectId, ...request }, f.agent);
  const createMany = (count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, index) =>
        f.client.CreateTicket(questionTicket(f.demo, { title: `bulk ${index}` }), f.agent),
      ),
    );

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.support.id;
  });
  after(() => f.stop());

  it('updates every listed ticket, each with its own version bump, in request order', async () => {
    const [a, b, c] = await createMany(3);
    await f.client.UpdateTicket({ project_id: project, id: b!.id, title: 'b twice' }, f.agent);
    const result = await bulk({
      ticket_ids: [c!.id, a!.id, b!.id, a!.id],
      status: 'work_in_progress',
      priority: 'high',
      assigned_to: { value: f.demo.users.lead.id },
      tags: { values: ['Triaged'] },
    });
    expect(result).to.deep.include({ success_count: 3, failed_count: 0, failed_ids: [] });
    expect(ticketsOf(result).map((t) => [t.id, t.version])).to.deep.equal([
      [c!.id, 2],
      [a!.id, 2],
      [b!.id, 3],
    ]);
    for (const t of ticketsOf(result)) {
      expect(t).to.deep.include({
        status: 'work_in_progress',
        priority: 'high',
        assigned_to: f.demo.users.lead.id,
        tags: ['triaged'],
        updated_by: f.demo.users.agent.id,
      });
      expect(ticketOf(await f.client.GetTicket({ project_id: project, id: t.id }, f.agent))).to.deep.equal(t);
    }
    // They joined the end of the lane in request order.
    const lane = (await f.client.GetBoard({ project_id: project }, f.agent)).lanes[1]!;
    expect(ticketsOf(lane).map((t) => t.id)).to.deep.equal([c!.id, a!.id, b!.id]);
  });

  it('reports unknown, deleted and other-project ids as failed, updating the rest', async () => {
    const [a, b] = await createMany(2);
    await f.client.DeleteTicket({ project_id: project, id: b!.id }, f.agent);
    const other = await f.client.CreateTicket(
      {
        project_id: f.demo.platform.id,
        ticket_type_id: f.demo.types.task.id,
        title: 'x',
        custom_fields_json: '',
      },
      f.agent,
    );
    const result = await bulk({ ticket_ids: [999_999, a!.id, b!.id, other.id], priority: 'low' });
    expect(result).to.deep.include({
      success_count: 1,
      failed_count: 3,
      failed_ids: [999_999, b!.id, other.id],
    });
    expect(ticketsOf(result).map((t) => t.id)).to.deep.equal([a!.id]);
    expect(
      ticketOf(await f.client.GetTicket({ project_id: f.demo.platform.id, id: other.id }, f.agent)).priority,
    ).to.equal('medium');
  });

  it('fails every ticket whose project lacks the status', async () => {
    const t = await f.client.CreateTicket(
      {
        project_id: f.demo.platform.id,
        ticket_type_id: f.demo.types.task.id,
        title: 'x',
        custom_fields_json: '',
      },
      f.agent,
    );
    const result = await bulk({ ticket_ids: [t.id], status: 'open' }, f.demo.platform.id);
    const { tickets_json: _json, ...counts } = result;
    expect({ ...counts, tickets: ticketsOf(result) }).to.deep.equal({
      success_count: 0,
      failed_count: 1,
      failed_ids: [t.id],
      tickets: [],
    });
    expect(
      (await f.client.GetTicket({ project_id: f.demo.platform.id, id: t.id }, f.agent)).version,
    ).to.equal(1);
  });

  it('unassigns with 0, keeps the assignee when the wrapper is absent, clears tags with an empty list', async () => {
    const [a] = await createMany(1);
    await bulk({
      ticket_ids: [a!.id],
      assigned_to: { value: f.demo.users.agent.id },
      tags: { values: ['x'] },
    });
    const kept = await bulk({ ticket_ids: [a!.id], priority: 'critical' });
    expect(ticketsOf(kept)[0]!).to.deep.include({
      assigned_to: f.demo.users.agent.id,
      tags: ['x'],
    });
    const cleared = await bulk({ ticket_ids: [a!.id], assigned_to: { value: 0 }, tags: { values: [] } });
    expect(ticketsOf(cleared)[0]!).to.deep.include({ assigned_to: null, tags: [] });
  });

  it('tags alone as an empty list (what the gateway sends for tags: null) clears them: version bump, ticket.updated', async () => {
    const [a, b] = await createMany(2);
    await bulk({ ticket_ids: [a!.id, b!.id], tags: { values: ['x', 'y'] } });
    const mark = await outboxMark(f.sql);
    const cleared = await bulk({ ticket_ids: [a!.id, b!.id], tags: { values: [] } });
    expect(cleared).to.deep.include({ success_count: 2, failed_count: 0, failed_ids: [] });
    const tickets = ticketsOf(cleared);
    for (const t of tickets) expect(t).to.deep.include({ tags: [], version: 3 });
    expect(ticketOf(await f.client.GetTicket({ project_id: project, id: a!.id }, f.agent))).to.deep.include({
      tags: [],
      version: 3,
    });
    const rows = await outboxSince(f.sql, mark);
    expect(rows.map((row) => [row.event_type, (row.payload.data as TicketJson).id])).to.deep.equal([
      ['ticket.updated', a!.id],
      ['ticket.updated', b!.id],
    ]);
    expect(rows.map((row) => row.payload.data)).to.deep.equal(tickets);
    // Without the wrapper nothing is asked for: still refused as a whole.
    expect(await refusalOf(bulk({ ticket_ids: [a!.id] }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { body: ['At least one of status, priority, assigned_to or tags is required'] },
    });
  });

  it('moving to an open status clears resolution_type; closed keeps it', async () => {
    const [a] = await createMany(1);
    await f.client.MoveTicket(
      { project_id: project, id: a!.id, status: 'closed', resolution_type: 'resolved' },
      f.agent,
    );
    const stillClosed = await bulk({ ticket_ids: [a!.id], status: 'closed' });
    expect(ticketsOf(stillClosed)[0]!.resolution_type).to.equal('resolved');
    const reopened = await bulk({ ticket_ids: [a!.id], status: 'waiting' });
    expect(ticketsOf(reopened)[0]!.resolution_type).to.equal(null);
  });

  it('refuses bad requests as a whole with 422', async () => {
    const [a] = await createMany(1);
    const ids = [a!.id];
    const hundredAndOne = Array.from({ length: 101 }, (_, index) => index + 1);
    const cases: [Omit<ticket.BulkUpdateTicketsRequest, 'project_id'>, object][] = [
      [{ ticket_ids: [], priority: 'low' }, { ticket_ids: ['ticket_ids must hold 1 to 100 ticket ids'] }],
      [
        { ticket_ids: hundredAndOne, priority: 'low' },
        { ticket_ids: ['ticket_ids must hold 1 to 100 ticket ids'] },
      ],
      [
        { ticket_ids: ids, status: 'triage' },
        { status: ['status must be one of open, work_in_progress, waiting, closed'] },
      ],
      [
        { ticket_ids: ids, priority: 'urgent' },
        { priority: ['Priority must be one of low, medium, high, critical'] },
      ],
      [{ ticket_ids: ids }, { body: ['At least one of status, priority, assigned_to or tags is required'] }],
      [{ ticket_ids: ids, assigned_to: { value: 424_242 } }, { assigned_to: ['User 424242 does not exist'] }],
      [
        { ticket_ids: ids, tags: { values: ['x'.repeat(51)] } },
        { tags: ['Each tag must be 1 to 50 characters'] },
      ],
    ];
    for (const [request, errors] of cases)
      expect(await refusalOf(bulk(request)), JSON.stringify(errors)).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: errors,
      });
    expect((await f.client.GetTicket({ project_id: project, id: a!.id }, f.agent)).version).to.equal(1);
  });

  it('accepts 100 ids and updates them all', async () => {
    const made = await createMany(100);
    const result = await bulk({ ticket_ids: made.map((t) => t.id), status: 'closed' });
    expect(result.success_count).to.equal(100);
    expect(ticketsOf(result).every((t) => t.status === 'closed' && t.version === 2)).to.be.true;
  });

  it('overlapping bulk updates at once never deadlock and every write lands', async () => {
    const made = await createMany(10);
    const forward = made.map((t) => t.id);
    const backward = [...forward].reverse();
    const results = await Promise.all([
      bulk({ ticket_ids: forward, priority: 'low' }),
      bulk({ ticket_ids: backward, tags: { values: ['both'] } }),
      bulk({ ticket_ids: forward, status: 'waiting' }),
    ]);
    // A ticket changed by another request meanwhile is re-read and updated again, never lost.
    expect(results.map((r) => [r.success_count, r.failed_count])).to.deep.equal([
      [10, 0],
      [10, 0],
      [10, 0],
    ]);
    const final = await f.client.ListTickets({ project_id: project, tag: 'both' }, f.agent);
    expect(
      ticketsOf(final)
        .map((t) => t.id)
        .sort(),
    ).to.deep.equal([...forward].sort());
    for (const t of ticketsOf(final))
      expect(t).to.deep.include({ priority: 'low', status: 'waiting', version: 4 });
  });
});
