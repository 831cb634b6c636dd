import { expect } from 'chai';
import { type EventActor, type TicketJson } from '@tix/protos';
import {
  outboxMark,
  type OutboxRow,
  outboxSince,
  questionTicket,
  refusalOf,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

interface Envelope {
  actor: EventActor;
  changes: Record<string, { from: unknown; to: unknown }>;
  defaulted_fields?: string[];
}

describe('tickets: domain events in the outbox', () => {
  let f: TicketFixture;
  let project: number;
  /** The actor of f.agent (an API key principal without a key id). */
  let agentActor: EventActor;

  /** Runs `operation` and returns the outbox rows it wrote. */
  async function written(operation: () => Promise<unknown>): Promise<OutboxRow[]> {
    const mark = await outboxMark(f.sql);
    await operation();
    return outboxSince(f.sql, mark);
  }

  /**
   * Asserts the rows are exactly `types`, each a well-formed event of the project carrying `data`
   * and the same v1.1 envelope (actor, changes, defaulted_fields on a create, write_types).
   */
  function expectEvents(rows: OutboxRow[], types: string[], data: TicketJson, envelope: Envelope) {
    expect(rows.map((row) => row.event_type)).to.deep.equal(types);
    for (const row of rows) {
      expect(row.payload).to.deep.equal({
        id: row.id,
        type: row.event_type,
        source: 'tickets',
        project_id: data.project_id,
        occurred_at: data.updated_at,
        ...envelope,
        // Every event of the write names all of them, so a consumer folds the write by its most specific type.
        write_types: types,
        data,
      });
    }
    expect(new Set(rows.map((row) => row.id)).size).to.equal(rows.length);
  }

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.support.id;
    agentActor = { kind: 'api_key', user_id: f.demo.users.agent.id, api_key_id: null };
  });
  after(() => f.stop());

  it('create: ticket.created with the created ticket, no changes, and what the server defaulted', async () => {
    let created: TicketJson | undefined;
    let rows = await written(async () => {
      created = ticketOf(await f.client.CreateTicket(questionTicket(f.demo, { tags: ['x'] }), f.agent));
    });
    // question's product (default web) and vip (default false) were not sent; priority neither.
    expectEvents(rows, ['ticket.created'], created!, {
      actor: agentActor,
      changes: {},
      defaulted_fields: ['priority', 'custom_fields.product', 'custom_fields.vip'],
    });
    const session = f.as(f.demo.users.lead, 'session');
    rows = await written(async () => {
      created = ticketOf(
        await f.client.CreateTicket(
          questionTicket(f.demo, { priority: 'high', custom_fields_json: '{"product":"api","vip":null}' }),
          session,
        ),
      );
    });
    expectEvents(rows, ['ticket.created'], created!, {
      actor: { kind: 'user', user_id: f.demo.users.lead.id, api_key_id: null },
      changes: {},
      defaulted_fields: [],
    });
  });

  it('create: the event data written in SQL is the created ticket, for awkward text and values too', async () => {
    let created: TicketJson | undefined;
    const rows = await written(async () => {
      created = ticketOf(
        await f.client.CreateTicket(
          questionTicket(f.demo, {
            title: 'Quotes " \' \\ and \u00e9\u{1F600}',
            description: 'Line\nbreak\ttab </script> ${x} 100%',
            priority: 'critical',
            assigned_to: f.demo.users.lead.id,
            custom_fields_json: '{"product":"api","vip":true}',
            tags: ['Zeta', 'alpha'],
          }),
          f.agent,
        ),
      );
    });
    expect(rows).to.have.length(1);
    expect(rows[0]!.payload.data).to.deep.equal(created);
  });

  it('update: ticket.updated, plus status_changed and assigned when those change, all with the same changes', async () => {
    const t = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent));
    let after: TicketJson | undefined;
    let rows = await written(async () => {
      after = ticketOf(await f.client.UpdateTicket({ project_id: project, id: t.id, title: 'New' }, f.agent));
    });
    expectEvents(rows, ['ticket.updated'], after!, {
      actor: agentActor,
      changes: { title: { from: t.title, to: 'New' } },
    });
    // An API key with its id: the actor names the key.
    const keyed = f.agent.principal!;
    const withKey = { principal: { ...keyed, key_id: 42 } };
    rows = await written(async () => {
      after = ticketOf(
        await f.client.UpdateTicket(
          { project_id: project, id: t.id, status: 'waiting', assigned_to: { value: f.demo.users.lead.id } },
          withKey,
        ),
      );
    });
    expectEvents(rows, ['ticket.updated', 'ticket.status_changed', 'ticket.assigned'], after!, {
      actor: { kind: 'api_key', user_id: f.demo.users.agent.id, api_key_id: 42 },
      changes: {
        status: { from: t.status, to: 'waiting' },
        assigned_to: { from: null, to: f.demo.users.lead.id },
      },
    });
    rows = await written(async () => {
      after = ticketOf(
        await f.client.UpdateTicket(
          { project_id: project, id: t.id, assigned_to: { value: 0 } },
          f.as(f.demo.users.admin, 'session'),
        ),
      );
    });
    expectEvents(rows, ['ticket.updated', 'ticket.assigned'], after!, {
      actor: { kind: 'user', user_id: f.demo.users.admin.id, api_key_id: null },
      changes: { assigned_to: { from: f.demo.users.lead.id, to: null } },
    });
  });

  it('move: ticket.updated + status_changed; a reorder in the lane is ticket.updated only', async () => {
    const t = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent));
    const other = await f.client.CreateTicket(questionTicket(f.demo), f.agent);
    let after: TicketJson | undefined;
    let rows = await written(async () => {
      after = ticketOf(
        await f.client.MoveTicket({ project_id: project, id: t.id, status: 'closed' }, f.agent),
      );
    });
    expectEvents(rows, ['ticket.updated', 'ticket.status_changed'], after!, {
      actor: agentActor,
      changes: { status: { from: t.status, to: 'closed' } },
    });
    await f.client.MoveTicket({ project_id: project, id: other.id, status: 'closed' }, f.agent);
    rows = await written(async () => {
      after = ticketOf(
        await f.client.MoveTicket(
          { project_id: project, id: t.id, status: 'closed', after_id: other.id },
          f.agent,
        ),
      );
    });
    // Only the lane position changed: no public field.
    expectEvents(rows, ['ticket.updated'], after!, { actor: agentActor, changes: {} });
  });

  it('bulk: each updated ticket gets its own events with its own data and changes', async () => {
    const [a, b] = [
      ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent)),
      ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent)),
    ];
    await f.client.MoveTicket({ project_id: project, id: b.id, status: 'waiting' }, f.agent);
    let tickets: TicketJson[] = [];
    const rows = await written(async () => {
      const result = await f.client.BulkUpdateTickets(
        { project_id: project, ticket_ids: [a.id, b.id, 999_999], status: 'waiting', priority: 'low' },
        f.agent,
      );
      tickets = ticketsOf(result);
    });
    expectEvents(rows.slice(0, 2), ['ticket.updated', 'ticket.status_changed'], tickets[0]!, {
      actor: agentActor,
      changes: { status: { from: a.status, to: 'waiting' }, priority: { from: 'medium', to: 'low' } },
    });
    expectEvents(rows.slice(2), ['ticket.updated'], tickets[1]!, {
      actor: agentActor,
      changes: { priority: { from: 'medium', to: 'low' } },
    });
  });

  it('merge: ticket.updated + status_changed + merged with the merged source', async () => {
    const [a, b] = [
      ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent)),
      await f.client.CreateTicket(questionTicket(f.demo), f.agent),
    ];
    let merged: TicketJson | undefined;
    const rows = await written(async () => {
      merged = ticketOf(
        await f.client.MergeTicket({ project_id: project, id: a.id, target_id: b.id }, f.agent),
      );
    });
    expectEvents(rows, ['ticket.updated', 'ticket.status_changed', 'ticket.merged'], merged!, {
      actor: agentActor,
      changes: {
        status: { from: a.status, to: merged!.status },
        resolution_type: { from: null, to: merged!.resolution_type },
        merged_into_id: { from: null, to: b.id },
      },
    });
  });

  it('delete: ticket.deleted with the ticket as deleted; restore: ticket.updated + ticket.restored', async () => {
    const t = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent));
    let rows = await written(() =>
      f.client.DeleteTicket({ project_id: project, id: t.id }, f.as(f.demo.users.lead)),
    );
    expect(rows.map((row) => row.event_type)).to.deep.equal(['ticket.deleted']);
    const deleted = rows[0]!.payload.data as TicketJson;
    expectEvents(
      rows,
      ['ticket.deleted'],
      { ...t, version: 2, updated_by: f.demo.users.lead.id, updated_at: deleted.updated_at },
      { actor: { kind: 'api_key', user_id: f.demo.users.lead.id, api_key_id: null }, changes: {} },
    );
    let restored: TicketJson | undefined;
    rows = await written(async () => {
      restored = ticketOf(await f.client.RestoreTicket({ project_id: project, id: t.id }, f.agent));
    });
    expectEvents(rows, ['ticket.updated', 'ticket.restored'], restored!, { actor: agentActor, changes: {} });
    expect(restored!.version).to.equal(3);
  });

  it('refused operations write no event', async () => {
    const t = await f.client.CreateTicket(questionTicket(f.demo), f.agent);
    const rows = await written(async () => {
      await refusalOf(
        f.client.UpdateTicket({ project_id: project, id: t.id, title: 'x', version: 7 }, f.agent),
      );
      await refusalOf(f.client.UpdateTicket({ project_id: project, id: t.id, title: '' }, f.agent));
      await refusalOf(f.client.MoveTicket({ project_id: project, id: t.id, status: 'nope' }, f.agent));
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { priority: 'x' }), f.agent));
      await refusalOf(f.client.RestoreTicket({ project_id: project, id: t.id }, f.agent));
      await f.client.BulkUpdateTickets(
        { project_id: project, ticket_ids: [999_999], priority: 'low' },
        f.agent,
      );
    });
    expect(rows).to.deep.equal([]);
  });
});
