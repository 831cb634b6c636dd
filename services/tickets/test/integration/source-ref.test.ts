import { expect } from 'chai';
import { suiteFixture } from '@tix/kit/testing';
import {
  outboxMark,
  outboxSince,
  questionTicket,
  refusalOf,
  startTicketFixture,
  ticketOf,
} from './support.js';

/** source_ref: a system caller's create repeated after a crash answers the first ticket. */
describe('tickets: source_ref makes a system create idempotent', () => {
  const f = suiteFixture(() => startTicketFixture());
  const system = () => ({ principal: { ...f.agent.principal!, kind: 'system' as const } });

  it('a repeat (sequential or concurrent) answers the first ticket: one row, one ticket.created', async () => {
    const mark = await outboxMark(f.sql);
    const request = questionTicket(f.demo, { source_type: 'email', source_ref: 'mail:77', requester_id: 3 });
    const [first, second] = await Promise.all([
      f.client.CreateTicket(request, system()).then(ticketOf),
      f.client.CreateTicket(request, system()).then(ticketOf),
    ]);
    const third = ticketOf(await f.client.CreateTicket({ ...request, title: 'Other' }, system()));
    expect(second.id).to.equal(first.id);
    expect(third.id).to.equal(first.id);
    expect(third.title).to.equal(first.title);
    const created = (await outboxSince(f.sql, mark)).filter((row) => row.event_type === 'ticket.created');
    expect(created).to.have.length(1);
    const { rows } = await f.sql.query('SELECT id FROM tickets WHERE source_ref = $1', ['mail:77']);
    expect(rows).to.have.length(1);
  });

  it('another source_ref, or none, is another ticket', async () => {
    const a = ticketOf(
      await f.client.CreateTicket(questionTicket(f.demo, { source_ref: 'mail:78' }), system()),
    );
    const b = ticketOf(
      await f.client.CreateTicket(questionTicket(f.demo, { source_ref: 'mail:79' }), system()),
    );
    const c = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), system()));
    expect(new Set([a.id, b.id, c.id]).size).to.equal(3);
  });

  it('GetTicket by project_ref_id (id 0) answers the numbered ticket; an unknown number is 404', async () => {
    const created = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent));
    const byNumber = ticketOf(
      await f.client.GetTicket(
        { project_id: f.demo.support.id, id: 0, project_ref_id: created.project_ref_id },
        f.agent,
      ),
    );
    expect(byNumber.id).to.equal(created.id);
    expect(
      await refusalOf(
        f.client.GetTicket({ project_id: f.demo.support.id, id: 0, project_ref_id: 999_999 }, f.agent),
      ),
    ).to.deep.include({ kind: 'not_found' });
  });

  it('anyone but a system principal is 403; an empty one is 422', async () => {
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { source_ref: 'mail:1' }), f.agent)),
    ).to.deep.equal({
      kind: 'permission_denied',
      message: 'Only the mail service or the portal can give a source_ref',
    });
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { source_ref: ' ' }), system())),
    ).to.deep.include({
      kind: 'validation_failed',
      validation_errors: { source_ref: ['source_ref must be 1 to 200 characters'] },
    });
  });
});
