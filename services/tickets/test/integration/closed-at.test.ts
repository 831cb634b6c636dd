import { expect } from 'chai';
import { type ticket } from '@tix/protos';
import { questionTicket, startTicketFixture, type TicketFixture, ticketOf, ticketsOf } from './support.js';

/** closed_at follows the status through every write path (docs/decisions.md, issue 28). */
describe('tickets: closed_at', () => {
  let f: TicketFixture;
  let project: number;
  let type: number;

  const create = async (title = 'Printer on fire') =>
    ticketOf(
      await f.client.CreateTicket(
        { project_id: project, ticket_type_id: type, title, custom_fields_json: '' },
        f.agent,
      ),
    );
  const update = async (request: Omit<ticket.UpdateTicketRequest, 'project_id'>) =>
    ticketOf(await f.client.UpdateTicket({ project_id: project, ...request }, f.agent));
  const move = async (request: Omit<ticket.MoveTicketRequest, 'project_id'>) =>
    ticketOf(await f.client.MoveTicket({ project_id: project, ...request }, f.agent));
  const read = async (id: number) => ticketOf(await f.client.GetTicket({ project_id: project, id }, f.agent));
  const stamp = async () =>
    (await f.sql.query<{ now: Date }>('SELECT now()::timestamptz(3) AS now')).rows[0]!.now.getTime();

  before(async () => {
    f = await startTicketFixture();
    const slug = `closing-${Math.random().toString(36).slice(2, 10)}`;
    // Two closed statuses, to see closed_at kept while the ticket moves between them.
    const created = await f.lookup.CreateProject({
      name: slug,
      slug,
      prefix: 'CL' + Math.floor(Math.random() * 1e6),
      description: '',
      statuses: [
        { slug: 'open', label: 'Open', is_closed: false },
        { slug: 'pending', label: 'Pending', is_closed: false },
        { slug: 'resolved', label: 'Resolved', is_closed: true },
        { slug: 'archived', label: 'Archived', is_closed: true },
      ],
    });
    project = created.id;
    type = (await f.lookup.CreateTicketType({ project_id: project, name: 'Task', slug: 'task' })).id;
  });
  after(() => f.stop());

  it('is null on a new ticket and while the status is open', async () => {
    const t = await create();
    expect(t).to.have.property('closed_at', null);
    expect(await update({ id: t.id, status: 'pending' })).to.have.property('closed_at', null);
  });

  it('is set when the status moves into a closed one, kept by other edits and closed-to-closed moves', async () => {
    const t = await create();
    const before = await stamp();
    const closed = await update({ id: t.id, status: 'resolved' });
    const after = await stamp();
    expect(closed.closed_at).to.be.a('string');
    const at = Date.parse(closed.closed_at!);
    expect(at).to.be.within(before, after);
    expect(closed.closed_at).to.equal(closed.updated_at);

    await new Promise((resolve) => setTimeout(resolve, 20));
    const renamed = await update({ id: t.id, title: 'Still closed' });
    expect(renamed.closed_at).to.equal(closed.closed_at);
    expect(Date.parse(renamed.updated_at)).to.be.greaterThan(at);
    const archived = await move({ id: t.id, status: 'archived' });
    expect(archived.closed_at).to.equal(closed.closed_at);
    expect((await read(t.id)).closed_at).to.equal(closed.closed_at);
  });

  it('is cleared when the ticket moves out of the closed statuses, and set anew on the next close', async () => {
    const t = await create();
    const first = await move({ id: t.id, status: 'resolved', resolution_type: 'resolved' });
    const reopened = await move({ id: t.id, status: 'open' });
    expect(reopened).to.deep.include({ closed_at: null, resolution_type: null });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await update({ id: t.id, status: 'archived' });
    expect(Date.parse(again.closed_at!)).to.be.greaterThan(Date.parse(first.closed_at!));
  });

  it('is set by a bulk update and by a merge, and carried in the events', async () => {
    const [b, target] = [await create('B'), await create('Target')];
    // Bulk updates know the spec's statuses only: the demo project has the default workflow.
    const a = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent));
    const bulk = await f.client.BulkUpdateTickets(
      { project_id: f.demo.support.id, ticket_ids: [a.id], status: 'closed' },
      f.agent,
    );
    expect(ticketsOf(bulk)[0]!.closed_at).to.be.a('string');
    const merged = ticketOf(
      await f.client.MergeTicket({ project_id: project, id: b.id, target_id: target.id }, f.agent),
    );
    expect(merged.closed_at).to.be.a('string');
    const { rows } = await f.sql.query<{ payload: { data: { id: number; closed_at: string | null } } }>(
      `SELECT payload FROM outbox_events WHERE event_type = 'ticket.status_changed'
         AND (payload->'data'->>'id')::int = $1`,
      [a.id],
    );
    expect(rows.map((row) => row.payload.data.closed_at)).to.deep.equal([ticketsOf(bulk)[0]!.closed_at]);
    const { rows: created } = await f.sql.query<{ payload: { data: { closed_at: string | null } } }>(
      `SELECT payload FROM outbox_events WHERE event_type = 'ticket.created' AND (payload->'data'->>'id')::int = $1`,
      [a.id],
    );
    expect(created[0]!.payload.data).to.have.property('closed_at', null);
  });

  it('a ticket closed before closed_at existed closed at its last change (the backfill rule)', async () => {
    const t = await move({ id: (await create()).id, status: 'resolved' });
    // As the migration leaves a closed ticket without a resolution_type.
    await f.sql.query('UPDATE tickets SET closed_at = NULL WHERE id = $1', [t.id]);
    expect((await read(t.id)).closed_at).to.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const renamed = await update({ id: t.id, title: 'Old and closed' });
    expect(renamed.closed_at).to.equal(t.updated_at);
  });
});
