import { expect } from 'chai';
import { suiteFixture } from '@tix/kit/testing';
import {
  outboxMark,
  outboxSince,
  questionTicket,
  refusalOf,
  startTicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

describe('tickets: requester_id, cc and the customer filters', () => {
  const f = suiteFixture(() => startTicketFixture());

  const create = (overrides: Parameters<typeof questionTicket>[1] = {}) =>
    f.client.CreateTicket(questionTicket(f.demo, overrides), f.agent).then(ticketOf);
  const list = (filters: { customer_id?: number; requester_id?: number; cursor?: string }) =>
    f.client
      .ListTickets(
        { project_id: f.demo.support.id, sort: '+id', page: { per_page: 100 }, ...filters },
        f.agent,
      )
      .then((page) => ticketsOf(page).map((ticket) => ticket.id));

  it('creates a ticket without a requester as requester_id null and cc []', async () => {
    const created = await create();
    expect(created).to.deep.include({ requester_id: null, cc: [], source_type: 'api' });
  });

  it('stores the requester and the cc: duplicates and the requester collapse away, the order kept', async () => {
    const created = await create({ requester_id: 501, cc: [503, 502, 503, 501] });
    expect(created).to.deep.include({ requester_id: 501, cc: [503, 502] });
    const got = ticketOf(
      await f.client.GetTicket({ project_id: f.demo.support.id, id: created.id }, f.agent),
    );
    expect(got).to.deep.include({ requester_id: 501, cc: [503, 502] });
  });

  it('refuses ids that are no customer ids, every problem at once (422)', async () => {
    expect(
      await refusalOf(
        f.client.CreateTicket(questionTicket(f.demo, { requester_id: 0, cc: [4, -1] }), f.agent),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        requester_id: ['requester_id must be a customer id'],
        cc: ['Each cc entry must be a customer id'],
      },
    });
    const many = Array.from({ length: 51 }, (_, index) => index + 1);
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { cc: many }), f.agent)),
    ).to.deep.include({
      validation_errors: { cc: ['cc must have at most 50 customers'] },
    });
  });

  it('stamps source_type email only for a system principal that asks for it', async () => {
    const system = { principal: { ...f.agent.principal!, kind: 'system' as const } };
    const mailed = ticketOf(
      await f.client.CreateTicket(questionTicket(f.demo, { requester_id: 9, source_type: 'email' }), system),
    );
    expect(mailed).to.deep.include({ source_type: 'email', requester_id: 9 });
    for (const source_type of ['email', 'portal', 'web']) {
      expect(
        await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { source_type }), f.agent)),
      ).to.deep.include({
        validation_errors: { source_type: ['source_type can only be email, set by the mail service'] },
      });
    }
    // Naming the principal's own source is no change.
    expect(
      ticketOf(await f.client.CreateTicket(questionTicket(f.demo, { source_type: 'api' }), f.agent)),
    ).to.have.property('source_type', 'api');
  });

  it('updates: sets, replaces and clears; a new requester leaves the cc; the events carry the change', async () => {
    const t = await create({ requester_id: 601, cc: [602] });
    const update = (fields: object) =>
      f.client.UpdateTicket({ project_id: f.demo.support.id, id: t.id, ...fields }, f.agent).then(ticketOf);

    const mark = await outboxMark(f.sql);
    const moved = await update({ requester_id: { value: 602 } });
    expect(moved).to.deep.include({ requester_id: 602, cc: [], version: 2 });
    const events = await outboxSince(f.sql, mark);
    expect(events.map((event) => event.event_type)).to.deep.equal(['ticket.updated']);
    const payload = events[0]!.payload as { data: object; changes: object };
    expect(payload.data).to.deep.include({ requester_id: 602, cc: [] });
    expect(payload.changes).to.deep.equal({
      requester_id: { from: 601, to: 602 },
      cc: { from: [602], to: [] },
    });

    expect(await update({ cc: { ids: [603, 602, 604] } })).to.deep.include({
      requester_id: 602,
      cc: [603, 604],
    });
    expect(await update({ title: 'Other field only' })).to.deep.include({
      requester_id: 602,
      cc: [603, 604],
    });
    expect(await update({ requester_id: {}, cc: { ids: [] } })).to.deep.include({
      requester_id: null,
      cc: [],
    });
    expect(
      await refusalOf(
        f.client.UpdateTicket({ project_id: f.demo.support.id, id: t.id, cc: { ids: [0] } }, f.agent),
      ),
    ).to.deep.include({ validation_errors: { cc: ['Each cc entry must be a customer id'] } });
  });

  it('writes the customer fields into ticket.created', async () => {
    const mark = await outboxMark(f.sql);
    const created = await create({ requester_id: 701, cc: [702] });
    const [event] = await outboxSince(f.sql, mark);
    expect((event!.payload as { data: object }).data).to.deep.equal(created);
  });

  it('filters by requester_id and by customer_id (requester or cc), live tickets only, in both page modes', async () => {
    const asked = await create({ requester_id: 801 });
    const copied = await create({ requester_id: 802, cc: [801] });
    const other = await create({ requester_id: 803, cc: [804] });
    const deleted = await create({ requester_id: 801 });
    await f.client.DeleteTicket({ project_id: f.demo.support.id, id: deleted.id }, f.agent);

    expect(await list({ requester_id: 801 })).to.deep.equal([asked.id]);
    expect(await list({ customer_id: 801 })).to.deep.equal([asked.id, copied.id]);
    expect(await list({ customer_id: 804 })).to.deep.equal([other.id]);
    expect(await list({ customer_id: 801, requester_id: 802 })).to.deep.equal([copied.id]);
    expect(await list({ customer_id: 999 })).to.deep.equal([]);
    expect(await list({ customer_id: 801, cursor: '' })).to.deep.equal([asked.id, copied.id]);

    const page = await f.client.ListTickets(
      { project_id: f.demo.support.id, sort: '', page: { per_page: 1 }, customer_id: 801 },
      f.agent,
    );
    expect(page.pagination).to.deep.include({ total: 2, total_pages: 2 });
  });

  it('refuses a customer filter that is no customer id (400 naming it)', async () => {
    for (const [name, value] of [
      ['customer_id', 0],
      ['requester_id', -3],
    ] as const) {
      expect(
        await refusalOf(
          f.client.ListTickets(
            { project_id: f.demo.support.id, sort: '', page: null, [name]: value },
            f.agent,
          ),
        ),
      ).to.deep.equal({
        kind: 'bad_request',
        message: `Invalid ${name}`,
        validation_errors: { [name]: [`${name} must be a customer id (a positive integer)`] },
      });
    }
  });

  it('keeps the database invariants: cc never holds the requester, NULL or a non-positive id', async () => {
    const t = await create({ requester_id: 901 });
    for (const cc of ['{901}', '{NULL}', '{0}']) {
      let failed = false;
      await f.sql.query('UPDATE tickets SET cc = $1 WHERE id = $2', [cc, t.id]).catch(() => (failed = true));
      expect(failed, cc).to.equal(true);
    }
  });
});
