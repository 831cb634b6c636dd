import { expect } from 'chai';
import { type AppError } from '@tix/kit';
import { type ticket } from '@tix/protos';
import {
  questionTicket,
  refusalOf,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

describe('tickets: UpdateTicket', () => {
  let f: TicketFixture;
  let project: number;

  const create = (overrides: Partial<ticket.CreateTicketRequest> = {}) =>
    f.client.CreateTicket(questionTicket(f.demo, overrides), f.agent);
  const update = (request: Omit<ticket.UpdateTicketRequest, 'project_id'>, context = f.agent) =>
    f.client.UpdateTicket({ project_id: project, ...request }, context);

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.support.id;
  });
  after(() => f.stop());

  it('changes only the given fields, bumps the version by 1 and stamps updated_by', async () => {
    const original = ticketOf(
      await create({
        description: 'keep me',
        priority: 'high',
        tags: ['a'],
        assigned_to: f.demo.users.agent.id,
      }),
    );
    const updated = ticketOf(
      await update({ id: original.id, title: '  Renamed  ' }, f.as(f.demo.users.lead)),
    );
    expect(updated).to.deep.equal({
      ...original,
      title: 'Renamed',
      version: 2,
      updated_by: f.demo.users.lead.id,
      updated_at: updated.updated_at,
    });
    expect(Date.parse(updated.updated_at)).to.be.at.least(Date.parse(original.updated_at));
  });

  it('sets and clears the description, priority and tags', async () => {
    const t = await create({ description: 'old', tags: ['x'] });
    const set = await update({
      id: t.id,
      description: { value: 'new **markdown**' },
      priority: 'low',
      tags: { values: [' Y ', 'z'] },
    });
    expect(ticketOf(set)).to.deep.include({
      description: 'new **markdown**',
      priority: 'low',
      tags: ['y', 'z'],
    });
    const cleared = await update({ id: t.id, description: {}, tags: { values: [] } });
    expect(ticketOf(cleared)).to.deep.include({ description: null, tags: [], version: 3 });
  });

  it('assigns, keeps (wrapper absent) and unassigns with 0 or an absent value', async () => {
    const t = await create();
    const lead = f.demo.users.lead.id;
    expect(ticketOf(await update({ id: t.id, assigned_to: { value: lead } })).assigned_to).to.equal(lead);
    expect(ticketOf(await update({ id: t.id, priority: 'high' })).assigned_to).to.equal(lead);
    expect(ticketOf(await update({ id: t.id, assigned_to: { value: 0 } })).assigned_to).to.equal(null);
    await update({ id: t.id, assigned_to: { value: lead } });
    expect(ticketOf(await update({ id: t.id, assigned_to: {} })).assigned_to).to.equal(null);
  });

  it('refuses assigning an inactive user, but re-sending the current assignee is no change', async () => {
    const user = await f.lookup.CreateUser({ name: 'Leaving', email: 'leaving@example.com', role: 'agent' });
    const t = await create({ assigned_to: user.id });
    await f.lookupSql.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
    // A user the service never looked up (so not in its user cache), inactive from the start.
    const inactive = await f.lookup.CreateUser({
      name: 'Inactive',
      email: 'inactive@example.com',
      role: 'agent',
    });
    await f.lookupSql.query('UPDATE users SET is_active = false WHERE id = $1', [inactive.id]);
    const other = await create();
    expect(await refusalOf(update({ id: other.id, assigned_to: { value: inactive.id } }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { assigned_to: [`User ${inactive.id} is not active`] },
    });
    const same = await update({ id: t.id, assigned_to: { value: user.id }, title: 'Still theirs' });
    expect(ticketOf(same)).to.deep.include({ assigned_to: user.id, title: 'Still theirs' });
  });

  it('merges custom fields over the stored ones and re-validates the whole', async () => {
    const t = await create({
      custom_fields_json: JSON.stringify({ product: 'api', contact_email: 'a@b.io' }),
    });
    const merged = await update({ id: t.id, custom_fields_json: JSON.stringify({ vip: true }) });
    expect(ticketOf(merged).custom_fields).to.deep.equal({
      product: 'api',
      contact_email: 'a@b.io',
      vip: true,
    });
    const cleared = await update({ id: t.id, custom_fields_json: JSON.stringify({ contact_email: null }) });
    expect(ticketOf(cleared).custom_fields).to.deep.equal({ product: 'api', vip: true });
    expect(
      await refusalOf(
        update({ id: t.id, custom_fields_json: JSON.stringify({ product: null, colour: 'red' }) }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        'custom_fields.colour': ['Unknown field'],
        'custom_fields.product': ['Product is required'],
      },
    });
    expect(await refusalOf(update({ id: t.id, custom_fields_json: '[]' }))).to.deep.include({
      validation_errors: { custom_fields: ['custom_fields must be an object'] },
    });
  });

  it('changes status to a status of the project: end of that lane, resolution cleared when open', async () => {
    const t = await create();
    const closed = await f.client.MoveTicket(
      { project_id: project, id: t.id, status: 'closed', resolution_type: 'resolved' },
      f.agent,
    );
    expect(ticketOf(closed).resolution_type).to.equal('resolved');
    const waiting = await create();
    await update({ id: waiting.id, status: 'waiting' });
    const reopened = await update({ id: t.id, status: 'waiting' });
    expect(ticketOf(reopened)).to.deep.include({
      status: 'waiting',
      status_label: 'Waiting',
      resolution_type: null,
    });
    const board = await f.client.GetBoard({ project_id: project }, f.agent);
    const lane = board.lanes.find((l) => l.status === 'waiting')!;
    expect(
      ticketsOf(lane)
        .map((x) => x.id)
        .slice(-2),
    ).to.deep.equal([waiting.id, t.id]);
    expect(await refusalOf(update({ id: t.id, status: 'done' }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        status: ["Status must be one of the project's statuses: open, work_in_progress, waiting, closed"],
      },
    });
  });

  it('checks the given version: current applies, stale is 409, below 1 is 422', async () => {
    const t = await create();
    const second = await update({ id: t.id, title: 'v2', version: 1 });
    expect(second.version).to.equal(2);
    expect(await refusalOf(update({ id: t.id, title: 'stale', version: 1 }))).to.deep.equal({
      kind: 'conflict',
      message: 'Ticket was modified by another user',
    });
    expect(await refusalOf(update({ id: t.id, title: 'x', version: 0 }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { version: ['version must be at least 1'] },
    });
    expect(ticketOf(await f.client.GetTicket({ project_id: project, id: t.id }, f.agent)).title).to.equal(
      'v2',
    );
  });

  it('refuses a request without any field to update (version alone is none)', async () => {
    const t = await create();
    for (const request of [{ id: t.id }, { id: t.id, version: 1 }])
      expect(await refusalOf(update(request))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { body: ['At least one field to update is required'] },
      });
  });

  it('answers 404 for unknown, deleted and other-project tickets, 401 without a principal', async () => {
    const t = await create();
    await f.client.DeleteTicket({ project_id: project, id: t.id }, f.agent);
    for (const request of [
      { project_id: project, id: t.id, title: 'x' },
      { project_id: project, id: 987_654, title: 'x' },
      { project_id: f.demo.platform.id, id: (await create()).id, title: 'x' },
    ])
      expect(await refusalOf(f.client.UpdateTicket(request, f.agent))).to.deep.equal({
        kind: 'not_found',
        message: 'Ticket not found',
      });
    expect(
      await refusalOf(f.client.UpdateTicket({ project_id: project, id: t.id, title: 'x' })),
    ).to.deep.include({
      kind: 'unauthenticated',
    });
  });

  it('two simultaneous updates with the same version: exactly one wins, the other gets 409', async () => {
    for (let round = 0; round < 5; round++) {
      const t = await create();
      const results = await Promise.allSettled([
        update({ id: t.id, title: 'left', version: 1 }),
        update({ id: t.id, title: 'right', version: 1 }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).to.have.length(1);
      expect(lost).to.have.length(1);
      const error = (lost[0] as PromiseRejectedResult).reason as AppError;
      expect([error.kind, error.message]).to.deep.equal(['conflict', 'Ticket was modified by another user']);
      const final = await f.client.GetTicket({ project_id: project, id: t.id }, f.agent);
      expect(ticketOf(final)).to.deep.include({ version: 2, title: ticketOf(won[0]!.value).title });
    }
  });

  it('simultaneous updates without a version never lose a write silently', async () => {
    const t = await create();
    const titles = Array.from({ length: 10 }, (_, index) => `writer ${index}`);
    const results = await Promise.allSettled(titles.map((title) => update({ id: t.id, title })));
    const won = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r.reason as AppError).kind).to.equal('conflict');
    // Every success is its own version: the writes applied one after another.
    expect(won.map((w) => w.version).sort((a, b) => a - b)).to.deep.equal(won.map((_, index) => index + 2));
    const final = await f.client.GetTicket({ project_id: project, id: t.id }, f.agent);
    const last = won.reduce((a, b) => (a.version > b.version ? a : b));
    expect(ticketOf(final)).to.deep.include({ version: 1 + won.length, title: ticketOf(last).title });
  });
});
