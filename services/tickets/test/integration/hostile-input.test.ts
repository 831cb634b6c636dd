import { expect } from 'chai';
import { MAX_INT32 } from '@tix/protos';
import { questionTicket, refusalOf, searchAll, startTicketFixture, ticketOf, ticketsOf } from './support.js';
import { suiteFixture } from '@tix/kit/testing';

/** Input PostgreSQL cannot store (NUL), absurd numbers and odd Unicode are refused or handled, never a 500. */
describe('tickets: hostile input is refused, never answered with 500', () => {
  const f = suiteFixture(() => startTicketFixture());
  let project: number;
  let ticketId: number;

  before(async () => {
    project = f.demo.support.id;
    ticketId = (await f.client.CreateTicket(questionTicket(f.demo), f.agent)).id;
  });

  it('NUL bytes in title, description, tags and custom fields are 422', async () => {
    expect(
      await refusalOf(
        f.client.CreateTicket(
          questionTicket(f.demo, {
            title: 'a\u0000b',
            description: '\u0000',
            tags: ['x\u0000'],
            custom_fields_json: JSON.stringify({ contact_email: 'a\u0000@b.io', 'odd\u0000key': 1 }),
          }),
          f.agent,
        ),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        title: ['Title must not contain control characters'],
        description: ['Description must not contain control characters'],
        tags: ['Tags must not contain control characters'],
        'custom_fields.odd\u0000key': ['Unknown field'],
        'custom_fields.contact_email': ['Contact email contains characters that are not allowed'],
      },
    });
    expect(
      await refusalOf(f.client.UpdateTicket({ project_id: project, id: ticketId, title: '\u0000' }, f.agent)),
    ).to.deep.include({ kind: 'validation_failed' });
  });

  it('NUL bytes and odd values in list parameters are 400 (or simply match nothing)', async () => {
    expect((await refusalOf(searchAll(f, { project_id: project, q: '\u0000' }))).kind).to.equal(
      'bad_request',
    );
    for (const request of [
      { tag: '\u0000' },
      { status: '\u0000' },
      { sort: '-\u0000' },
      { priority: '\u0000' },
    ])
      expect(
        (await refusalOf(f.client.ListTickets({ project_id: project, ...request }, f.agent))).kind,
      ).to.equal('bad_request');
    const page = await f.client.ListTickets(
      { project_id: project, assignee: MAX_INT32, page: { page: MAX_INT32, per_page: 100 } },
      f.agent,
    );
    expect(ticketsOf(page)).to.deep.equal([]);
    expect(
      await refusalOf(f.client.GetBoard({ project_id: project, priority: '\u0000' }, f.agent)),
    ).to.deep.include({
      kind: 'bad_request',
    });
    const board = await f.client.GetBoard(
      { project_id: project, lane_limit: MAX_INT32, assignee: -1 },
      f.agent,
    );
    expect(board.total).to.equal(0);
  });

  it('extreme ids are 404 / failed ids / 422, never a database error', async () => {
    for (const id of [MAX_INT32, -MAX_INT32 - 1, 0]) {
      expect((await refusalOf(f.client.GetTicket({ project_id: project, id }, f.agent))).kind).to.equal(
        'not_found',
      );
      expect((await refusalOf(f.client.GetTicket({ project_id: id, id: ticketId }, f.agent))).kind).to.equal(
        'not_found',
      );
    }
    const bulk = await f.client.BulkUpdateTickets(
      { project_id: project, ticket_ids: [MAX_INT32, -1, 0], priority: 'low' },
      f.agent,
    );
    expect(bulk.failed_ids).to.deep.equal([MAX_INT32, -1, 0]);
    expect(
      (
        await refusalOf(
          f.client.MergeTicket({ project_id: project, id: ticketId, target_id: MAX_INT32 }, f.agent),
        )
      ).kind,
    ).to.equal('validation_failed');
    expect(
      (
        await refusalOf(
          f.client.MoveTicket({ project_id: project, id: ticketId, status: 'open', after_id: -7 }, f.agent),
        )
      ).validation_errors,
    ).to.deep.equal({ after_id: ['Ticket -7 is not in the open lane'] });
    expect(
      (
        await refusalOf(
          f.client.CreateTicket(
            questionTicket(f.demo, { assigned_to: -3, ticket_type_id: MAX_INT32 }),
            f.agent,
          ),
        )
      ).validation_errors,
    ).to.deep.equal({
      ticket_type_id: ['Ticket type not found in this project'],
      assigned_to: ['User -3 does not exist'],
    });
  });

  it('stores and finds any Unicode text', async () => {
    const title = 'Ünïcödé 🎫 مرحبا 漢字 e\u0301';
    const t = await f.client.CreateTicket(
      questionTicket(f.demo, { title, description: '🙂'.repeat(5000), tags: ['ÉTÉ'] }),
      f.agent,
    );
    expect(ticketOf(t)).to.deep.include({ title, tags: ['été'] });
    const found = await searchAll(f, { project_id: project, q: 'ÜNÏCÖDÉ 🎫' });
    expect(found.map((x) => x.id)).to.deep.equal([t.id]);
    expect(
      ticketsOf(await f.client.ListTickets({ project_id: project, tag: 'Été' }, f.agent)),
    ).to.have.length(1);
  });

  it('custom_fields JSON of any shape is 422 (null counts as none given), not 500', async () => {
    const shapes = ['0', 'true', '"x"', '[]', '{"product": {"nested": [1, {"a": null}]}}', '{'.repeat(2000)];
    for (const custom_fields_json of shapes)
      expect(
        (await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { custom_fields_json }), f.agent)))
          .kind,
        custom_fields_json.slice(0, 40),
      ).to.equal('validation_failed');
    const none = await f.client.CreateTicket(questionTicket(f.demo, { custom_fields_json: 'null' }), f.agent);
    expect(ticketOf(none).custom_fields).to.deep.equal({ product: 'web', vip: false });
  });
});
