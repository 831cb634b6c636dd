/**
 * Syncing and finding tickets through the fleet: `created_since` and
 * `updated_since` for incremental sync, `assignee=none`, `q` finding a ticket by its number,
 * `deleted=only` for whoever may delete (and so restore), and a misspelt query parameter refused
 * with 400 naming it instead of quietly widening the list.
 */
import { expect } from 'chai';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request } from '../support/http.js';

interface Ticket {
  id: number;
  ticket_number: string;
  title: string;
  updated_at: string;
  created_at: string;
  assigned_to: number | null;
}

describe('syncing and finding tickets', function () {
  let project: ProjectFixture;
  let typeId: number;
  let agentKey: string;
  let leadKey: string;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    agentKey = (await createKey({ project: project.slug })).key;
    leadKey = (await createKey({ project: project.slug, role: 'team_lead' })).key;
  });

  const file = (title: string, extra: Record<string, unknown> = {}) =>
    createTicket<Ticket>(agentKey, { ticket_type_id: typeId, title, description: 'Sync.', ...extra });
  const list = async (query: string, key = agentKey) => {
    const response = await request(`/v1/tickets?${query}`, { key });
    expect(response.status, response.text).to.equal(200);
    return response.body.data.tickets as Ticket[];
  };
  const ids = (tickets: Ticket[]) => tickets.map((ticket) => ticket.id).sort((a, b) => a - b);

  it('lists what was created or changed since a time, for incremental sync', async () => {
    const old = await file('Before the mark');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const mark = new Date().toISOString();
    const fresh = await file('After the mark');
    expect(ids(await list(`created_since=${mark}&per_page=100`))).to.deep.equal([fresh.id]);
    expect(ids(await list(`updated_since=${mark}&per_page=100`))).to.deep.equal([fresh.id]);
    // A change counts as an update, not a creation.
    const edited = await request(`/v1/tickets/${old.id}`, {
      method: 'PUT',
      key: agentKey,
      body: { title: 'Edited' },
    });
    expect(edited.status).to.equal(200);
    expect(ids(await list(`updated_since=${mark}&sort=updated_at&per_page=100`))).to.deep.equal(
      ids([old, fresh]),
    );
    expect(ids(await list(`created_since=${mark}&per_page=100`))).to.deep.equal([fresh.id]);
    const bad = await request('/v1/tickets?updated_since=yesterday', { key: agentKey });
    expect(bad.status).to.equal(400);
    expect(bad.body.error?.validation_errors).to.have.property('updated_since');
  });

  it('lists the unassigned tickets with assignee=none', async () => {
    const users = (await request('/v1/users', { key: agentKey })).body.data.users as {
      id: number;
      is_system: boolean;
    }[];
    const person = users.find((user) => !user.is_system)!;
    const assigned = await file('Someone has it', { assigned_to: person.id });
    const nobody = await file('Nobody has it');
    const unassigned = ids(await list('assignee=none&per_page=100'));
    expect(unassigned).to.include(nobody.id);
    expect(unassigned).to.not.include(assigned.id);
    for (const ticket of await list('assignee=none&per_page=100')) expect(ticket.assigned_to).to.equal(null);
  });

  it('finds a ticket by its number with q, in any case, besides the text matches', async () => {
    const wanted = await file('Numbered');
    const found = await list(`q=${wanted.ticket_number.toLowerCase()}`);
    expect(ids(found)).to.deep.equal([wanted.id]);
    const other = await createProject();
    const otherKey = (await createKey({ project: other.slug })).key;
    // Another project's number is no number here (and its own project has no such ticket).
    const elsewhere = await request(`/v1/tickets?q=${encodeURIComponent(wanted.ticket_number)}`, {
      key: otherKey,
    });
    expect(elsewhere.status).to.equal(200);
    expect(elsewhere.body.data.tickets).to.deep.equal([]);
  });

  it('lists deleted tickets for whoever may delete them, so one can be restored', async () => {
    const doomed = await file('To be deleted and found again');
    expect((await request(`/v1/tickets/${doomed.id}`, { method: 'DELETE', key: leadKey })).status).to.equal(
      200,
    );
    expect(ids(await list('per_page=100'))).to.not.include(doomed.id);
    const deleted = await list('deleted=only&per_page=100', leadKey);
    expect(ids(deleted)).to.include(doomed.id);
    const refused = await request('/v1/tickets?deleted=only', { key: agentKey });
    expect(refused.status).to.equal(403);
    expect(refused.body.error?.message).to.equal('Missing required scope: tickets:delete');
    const restored = await request(`/v1/tickets/${doomed.id}/restore`, { method: 'POST', key: agentKey });
    expect(restored.status, restored.text).to.equal(200);
    expect(ids(await list('deleted=only&per_page=100', leadKey))).to.not.include(doomed.id);
  });

  it('refuses an unknown query parameter with 400 naming it, so a typo never widens a list', async () => {
    const typo = await request('/v1/tickets?assigned_to=8&sort_by=title', { key: agentKey });
    expect(typo.status).to.equal(400);
    expect(typo.body).to.deep.equal({
      ok: false,
      error: {
        code: 400,
        message: 'Invalid assigned_to, sort_by',
        validation_errors: {
          assigned_to: ['Unknown query parameter: assigned_to'],
          sort_by: ['Unknown query parameter: sort_by'],
        },
      },
    });
    // The project context's parameters are known everywhere.
    const keyed = await request(`/v1/tickets?project=${project.slug}&per_page=1`, { key: agentKey });
    expect(keyed.status).to.equal(200);
  });
});
