import { expect } from 'chai';
import {
  questionTicket,
  refusalOf,
  searchAll,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

describe('tickets: DeleteTicket and RestoreTicket', () => {
  let f: TicketFixture;
  let project: number;
  const notFound = { kind: 'not_found', message: 'Ticket not found' };

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.support.id;
  });
  after(() => f.stop());

  it('soft-deletes: 200 message, then 404 / absent everywhere, while the row stays', async () => {
    const keep = await f.client.CreateTicket(questionTicket(f.demo, { title: 'keep' }), f.agent);
    const doomed = await f.client.CreateTicket(questionTicket(f.demo, { title: 'doomed' }), f.agent);
    expect(await f.client.DeleteTicket({ project_id: project, id: doomed.id }, f.agent)).to.deep.equal({
      message: 'Ticket deleted',
    });
    const address = { project_id: project, id: doomed.id };
    expect(await refusalOf(f.client.GetTicket(address, f.agent))).to.deep.equal(notFound);
    expect(await refusalOf(f.client.UpdateTicket({ ...address, title: 'x' }, f.agent))).to.deep.equal(
      notFound,
    );
    expect(await refusalOf(f.client.MoveTicket({ ...address, status: 'closed' }, f.agent))).to.deep.equal(
      notFound,
    );
    expect(await refusalOf(f.client.DeleteTicket(address, f.agent))).to.deep.equal(notFound);
    expect(await refusalOf(f.client.MergeTicket({ ...address, target_id: keep.id }, f.agent))).to.deep.equal(
      notFound,
    );
    const list = await f.client.ListTickets({ project_id: project }, f.agent);
    expect(ticketsOf(list).map((t) => t.id)).to.deep.equal([keep.id]);
    expect(list.pagination!.total).to.equal(1);
    expect(await searchAll(f, { project_id: project, q: 'doomed' })).to.deep.equal([]);
    const board = await f.client.GetBoard({ project_id: project }, f.agent);
    expect(board.total).to.equal(1);
    expect(ticketsOf(board.lanes[0]).map((t) => t.id)).to.deep.equal([keep.id]);
    const bulk = await f.client.BulkUpdateTickets(
      { project_id: project, ticket_ids: [doomed.id, keep.id], priority: 'high' },
      f.agent,
    );
    expect([bulk.success_count, bulk.failed_ids]).to.deep.equal([1, [doomed.id]]);
    expect(
      await refusalOf(
        f.client.MergeTicket({ project_id: project, id: keep.id, target_id: doomed.id }, f.agent),
      ),
    ).to.deep.include({
      validation_errors: { target_id: [`Ticket ${doomed.id} not found in this project`] },
    });
    const { rows } = await f.sql.query(
      'SELECT deleted_at IS NOT NULL AS deleted, version FROM tickets WHERE id = $1',
      [doomed.id],
    );
    expect(rows).to.deep.equal([{ deleted: true, version: 2 }]);
  });

  it('restores a deleted ticket at the end of its lane with version +1', async () => {
    const t = await f.client.CreateTicket(questionTicket(f.demo, { title: 'comes back' }), f.agent);
    await f.client.DeleteTicket({ project_id: project, id: t.id }, f.agent);
    const later = await f.client.CreateTicket(questionTicket(f.demo, { title: 'later' }), f.agent);
    const restored = await f.client.RestoreTicket({ project_id: project, id: t.id }, f.as(f.demo.users.lead));
    expect(ticketOf(restored)).to.deep.include({
      id: t.id,
      title: 'comes back',
      version: 3,
      updated_by: f.demo.users.lead.id,
    });
    expect(ticketOf(await f.client.GetTicket({ project_id: project, id: t.id }, f.agent))).to.deep.equal(
      ticketOf(restored),
    );
    const lane = ticketsOf((await f.client.GetBoard({ project_id: project }, f.agent)).lanes[0]).map(
      (x) => x.id,
    );
    expect(lane.slice(-2)).to.deep.equal([later.id, t.id]);
  });

  it('refuses to restore a live ticket (409) and unknown or other-project ones (404)', async () => {
    const t = await f.client.CreateTicket(questionTicket(f.demo), f.agent);
    expect(await refusalOf(f.client.RestoreTicket({ project_id: project, id: t.id }, f.agent))).to.deep.equal(
      {
        kind: 'conflict',
        message: 'Ticket is not deleted',
      },
    );
    await f.client.DeleteTicket({ project_id: project, id: t.id }, f.agent);
    for (const address of [
      { project_id: project, id: 999_999 },
      { project_id: f.demo.platform.id, id: t.id },
    ])
      expect(await refusalOf(f.client.RestoreTicket(address, f.agent))).to.deep.equal(notFound);
  });

  it('needs a principal for both', async () => {
    const t = await f.client.CreateTicket(questionTicket(f.demo), f.agent);
    expect((await refusalOf(f.client.DeleteTicket({ project_id: project, id: t.id }))).kind).to.equal(
      'unauthenticated',
    );
    expect((await refusalOf(f.client.RestoreTicket({ project_id: project, id: t.id }))).kind).to.equal(
      'unauthenticated',
    );
  });
});
