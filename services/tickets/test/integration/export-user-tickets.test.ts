/**
 * ExportUserTickets (the data export): every live ticket of any project the user created or is
 * assigned to, in id order, each presented in its own project; nobody else's, no deleted ones; more
 * than one batch; only the user (or an admin, or operator tooling) may ask; and a caller that stops
 * reading or leaves holds nothing in the database.
 */
import { expect } from 'chai';
import { eventually, pausedExport, suiteFixture } from '@tix/kit/testing';
import type { ticket } from '@tix/protos';
import { EXPORT_BATCH_SIZE, userTicketBatches } from '../../src/export/export-user-tickets.js';
import { questionTicket, refusalOf, startTicketFixture, ticketOf } from './support.js';

describe('tickets: ExportUserTickets', function () {
  this.timeout(120_000);
  const f = suiteFixture(() => startTicketFixture());
  let platformTypeId: number;

  before(async () => {
    const { ticket_types } = await f.lookup.ListTicketTypes({ project_id: f.demo.platform.id });
    platformTypeId = ticket_types[0]!.id;
  });

  const exportOf = async (userId: number, context = f.as(f.demo.users.agent, 'session')) => {
    const found: ticket.ApiTicket__Output[] = [];
    for await (const item of f.client.ExportUserTickets({ user_id: userId }, context)) found.push(item);
    return found;
  };

  it("streams the user's created and assigned live tickets of every project, in id order, and nobody else's", async () => {
    const { agent, lead, viewer } = f.demo.users;
    const asAgent = f.as(agent, 'session');
    const asLead = f.as(lead, 'session');
    const created = await f.client.CreateTicket(questionTicket(f.demo, { title: 'mine' }), asAgent);
    const assigned = await f.client.CreateTicket(
      {
        project_id: f.demo.platform.id,
        ticket_type_id: platformTypeId,
        title: 'given to me',
        custom_fields_json: '',
        assigned_to: agent.id,
      },
      asLead,
    );
    // Created and assigned both: once.
    const both = await f.client.CreateTicket(
      questionTicket(f.demo, { title: 'both', assigned_to: agent.id }),
      asAgent,
    );
    await f.client.CreateTicket(
      questionTicket(f.demo, { title: 'not mine', assigned_to: viewer.id }),
      asLead,
    );
    const deleted = await f.client.CreateTicket(questionTicket(f.demo, { title: 'deleted' }), asAgent);
    await f.client.DeleteTicket({ project_id: f.demo.support.id, id: deleted.id }, asLead);

    const exported = await exportOf(agent.id);
    expect(exported.map((t) => t.id)).to.deep.equal([created.id, assigned.id, both.id]);
    // Each presented exactly as GetTicket presents it, in its own project (prefix, labels).
    expect(exported[1]).to.deep.equal(
      await f.client.GetTicket({ project_id: f.demo.platform.id, id: assigned.id }, asLead),
    );
    expect(ticketOf(exported[1]).ticket_number.startsWith(`${f.demo.platform.prefix}-`)).to.equal(true);
    expect(exported[0]).to.deep.equal(
      await f.client.GetTicket({ project_id: f.demo.support.id, id: created.id }, asLead),
    );
    expect(await exportOf(f.demo.users.admin.id, f.as(f.demo.users.admin, 'session'))).to.deep.equal([]);
  });

  it('walks batch boundaries without losing or repeating a ticket', async () => {
    const { agent } = f.demo.users;
    const expected = (await exportOf(agent.id)).map((t) => t.id);
    for (const batchSize of [1, 2, 3]) {
      const ids: number[] = [];
      for await (const rows of userTicketBatches(f.sql, agent.id, batchSize)) {
        expect(rows.length).to.be.at.most(batchSize);
        ids.push(...rows.map((row) => row.id));
      }
      expect(ids, `batch size ${batchSize}`).to.deep.equal(expected);
    }
    expect(expected.length).to.be.greaterThan(2);
  });

  it('streams a set larger than one batch, all of it, in order', async () => {
    const { lead } = f.demo.users;
    const asLead = f.as(lead, 'session');
    const before = (await exportOf(lead.id, asLead)).length;
    const count = EXPORT_BATCH_SIZE + 25;
    for (let start = 0; start < count; start += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, count - start) }, (_, i) =>
          f.client.CreateTicket(questionTicket(f.demo, { title: `bulk ${start + i}` }), asLead),
        ),
      );
    }
    const exported = await exportOf(lead.id, asLead);
    expect(exported.length).to.equal(before + count);
    const ids = exported.map((t) => t.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('is refused to anyone but the user, an admin or operator tooling, and to a project-scoped key', async () => {
    const { agent, viewer, admin } = f.demo.users;
    const denied = { kind: 'permission_denied', message: 'You may only export your own data' };
    const firstOf = async (context: Parameters<typeof exportOf>[1], userId = agent.id) => {
      for await (const item of f.client.ExportUserTickets({ user_id: userId }, context)) return item;
      return null;
    };
    expect(await refusalOf(firstOf(f.as(viewer, 'session')))).to.deep.equal(denied);
    const scoped = f.as(agent);
    scoped.principal = { ...scoped.principal!, project_id: f.demo.support.id };
    expect(await refusalOf(firstOf(scoped))).to.deep.equal(denied);
    expect(await refusalOf(firstOf(f.as(agent, 'session'), 0))).to.deep.equal({
      kind: 'bad_request',
      message: 'Invalid user id',
    });
    expect(await firstOf(f.as(admin, 'session'))).to.not.equal(null);
    expect(await firstOf({})).to.not.equal(null);
  });

  it('holds no connection while its caller does not read, and stops when the caller leaves', async () => {
    const { lead } = f.demo.users;
    const call = f.client.raw.ExportUserTickets(
      { user_id: lead.id },
      f.client.callMetadata(f.as(lead, 'session')),
      {},
    );
    // The service waits for the caller with a full window: no transaction, no query in flight.
    const { busyConnections, ended: error } = await pausedExport(call, f.sql);
    expect(busyConnections).to.equal(0);
    expect(error, 'a cancelled export must not end as if complete').to.not.equal(null);
    // The service goes on serving exports.
    await eventually(async () => (await exportOf(lead.id, f.as(lead, 'session'))).length > EXPORT_BATCH_SIZE);
  });
});
