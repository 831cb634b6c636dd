import { expect } from 'chai';
import type { AppError } from '@tix/kit';
import { questionTicket, refusalOf, startTicketFixture, type TicketFixture, ticketOf } from './support.js';

describe('tickets: MergeTicket', () => {
  let f: TicketFixture;
  let project: number;

  const create = (title = 'dup') => f.client.CreateTicket(questionTicket(f.demo, { title }), f.agent);
  const merge = (id: number, target_id: number) =>
    f.client.MergeTicket({ project_id: project, id, target_id }, f.agent);

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.support.id;
  });
  after(() => f.stop());

  it('merges: merged_into set, closed as a duplicate, version +1, the source returned', async () => {
    const source = await create('source');
    const target = await create('target');
    const merged = ticketOf(await merge(source.id, target.id));
    expect(merged).to.deep.include({
      id: source.id,
      merged_into_id: target.id,
      merged_into: target.id,
      status: 'closed',
      status_label: 'Closed',
      resolution_type: 'duplicate',
      version: 2,
      updated_by: f.demo.users.agent.id,
    });
    expect(ticketOf(await f.client.GetTicket({ project_id: project, id: source.id }, f.agent))).to.deep.equal(
      merged,
    );
    // The target is untouched.
    expect((await f.client.GetTicket({ project_id: project, id: target.id }, f.agent)).version).to.equal(1);
  });

  it("closes into a custom workflow's first closed status", async () => {
    const task = (title: string) =>
      f.client.CreateTicket(
        {
          project_id: f.demo.platform.id,
          ticket_type_id: f.demo.types.task.id,
          title,
          custom_fields_json: '',
        },
        f.agent,
      );
    const [a, b] = [await task('a'), await task('b')];
    const merged = await f.client.MergeTicket(
      { project_id: f.demo.platform.id, id: a.id, target_id: b.id },
      f.agent,
    );
    expect(ticketOf(merged)).to.deep.include({
      status: 'done',
      resolution_type: 'duplicate',
      merged_into_id: b.id,
    });
  });

  it('refuses itself, unknown, deleted and other-project targets (422 on target_id)', async () => {
    const source = await create();
    const deleted = await create();
    await f.client.DeleteTicket({ project_id: project, id: deleted.id }, f.agent);
    const foreign = await f.client.CreateTicket(
      {
        project_id: f.demo.platform.id,
        ticket_type_id: f.demo.types.task.id,
        title: 'x',
        custom_fields_json: '',
      },
      f.agent,
    );
    expect(await refusalOf(merge(source.id, source.id))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { target_id: ['A ticket cannot be merged into itself'] },
    });
    for (const target of [999_999, deleted.id, foreign.id])
      expect(await refusalOf(merge(source.id, target))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { target_id: [`Ticket ${target} not found in this project`] },
      });
  });

  it('refuses a merged target and an already merged source; unknown sources are 404', async () => {
    const [a, b, c] = [await create(), await create(), await create()];
    await merge(a.id, b.id);
    expect(await refusalOf(merge(c.id, a.id))).to.deep.include({
      validation_errors: { target_id: [`Ticket ${a.id} is already merged into ticket ${b.id}`] },
    });
    expect(await refusalOf(merge(a.id, c.id))).to.deep.include({
      validation_errors: { id: [`Ticket ${a.id} is already merged into ticket ${b.id}`] },
    });
    expect(await refusalOf(merge(999_999, c.id))).to.deep.equal({
      kind: 'not_found',
      message: 'Ticket not found',
    });
  });

  it('two crossing merges at once never both win (no cycle)', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = [await create(), await create()];
      const results = await Promise.allSettled([merge(a.id, b.id), merge(b.id, a.id)]);
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect((lost.reason as AppError).kind).to.equal('validation_failed');
      const { rows } = await f.sql.query<{ merged: number }>(
        'SELECT count(*)::int AS merged FROM tickets WHERE id = ANY($1) AND merged_into_id IS NOT NULL',
        [[a.id, b.id]],
      );
      expect(rows[0]!.merged).to.equal(1);
    }
  });
});
