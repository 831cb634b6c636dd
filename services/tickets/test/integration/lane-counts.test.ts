import { expect } from 'chai';
import { startTicketFixture } from './support.js';
import { suiteFixture } from '@tix/kit/testing';

/** lane_counts (kept by triggers) must always equal a real count of live tickets per lane. */
describe('tickets: lane counts stay exact through every kind of write', () => {
  const f = suiteFixture(() => startTicketFixture());
  let project: number;

  before(() => {
    project = f.demo.platform.id;
  });

  async function expectCountsExact(): Promise<void> {
    const { rows: kept } = await f.sql.query<{ status: string; live: number }>(
      'SELECT status, live FROM lane_counts WHERE project_id = $1 AND live <> 0 ORDER BY status',
      [project],
    );
    const { rows: real } = await f.sql.query<{ status: string; live: number }>(
      `SELECT status, count(*)::int AS live FROM tickets WHERE project_id = $1 AND deleted_at IS NULL
        GROUP BY status ORDER BY status`,
      [project],
    );
    expect(kept).to.deep.equal(real);
    const board = await f.client.GetBoard({ project_id: project }, f.agent);
    expect(board.total).to.equal(real.reduce((sum, row) => sum + row.live, 0));
    for (const lane of board.lanes) {
      expect(lane.count, lane.status).to.equal(real.find((row) => row.status === lane.status)?.live ?? 0);
    }
  }

  it('after creates, moves, deletes, restores, bulk updates and merges, alone and concurrently', async () => {
    const create = (title: string) =>
      f.client.CreateTicket(
        { project_id: project, ticket_type_id: f.demo.types.task.id, title, custom_fields_json: '' },
        f.agent,
      );
    const created = await Promise.all(Array.from({ length: 30 }, (_, i) => create(`t${i}`)));
    await expectCountsExact();

    const ids = created.map((t) => t.id);
    await Promise.all(
      ids
        .slice(0, 10)
        .map((id, i) =>
          f.client.MoveTicket({ project_id: project, id, status: i % 2 ? 'todo' : 'done' }, f.agent),
        ),
    );
    await expectCountsExact();

    await Promise.all(
      ids.slice(10, 15).map((id) => f.client.DeleteTicket({ project_id: project, id }, f.agent)),
    );
    await f.client.RestoreTicket({ project_id: project, id: ids[10]! }, f.agent);
    await expectCountsExact();

    await Promise.all([
      f.client.BulkUpdateTickets(
        { project_id: project, ticket_ids: ids.slice(15, 25), status: 'closed' },
        f.agent,
      ),
      f.client.BulkUpdateTickets(
        { project_id: project, ticket_ids: ids.slice(20, 30), priority: 'high' },
        f.agent,
      ),
    ]);
    await expectCountsExact();

    await f.client.MergeTicket({ project_id: project, id: ids[25]!, target_id: ids[26]! }, f.agent);
    await f.client.UpdateTicket({ project_id: project, id: ids[27]!, status: 'in_review' }, f.agent);
    await expectCountsExact();
  });

  it('serves list totals from the kept counts without filters, and from a real count with them', async () => {
    const all = await f.client.ListTickets(
      { project_id: project, page: { page: 1, per_page: 5 }, sort: '-id' },
      f.agent,
    );
    const { rows } = await f.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM tickets WHERE project_id = $1 AND deleted_at IS NULL',
      [project],
    );
    expect(all.pagination?.total).to.equal(rows[0]!.n);
    const todo = await f.client.ListTickets(
      { project_id: project, page: { page: 1, per_page: 5 }, sort: '-id', status: 'todo' },
      f.agent,
    );
    const high = await f.client.ListTickets(
      { project_id: project, page: { page: 1, per_page: 5 }, sort: '-id', priority: 'high' },
      f.agent,
    );
    const { rows: counts } = await f.sql.query<{ todo: number; high: number }>(
      `SELECT count(*) FILTER (WHERE status = 'todo')::int AS todo, count(*) FILTER (WHERE priority = 'high')::int AS high
         FROM tickets WHERE project_id = $1 AND deleted_at IS NULL`,
      [project],
    );
    expect(todo.pagination?.total).to.equal(counts[0]!.todo);
    expect(high.pagination?.total).to.equal(counts[0]!.high);
  });
});
