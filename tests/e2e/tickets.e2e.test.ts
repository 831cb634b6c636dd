/**
 * Tickets through the real fleet (gateway -> ticket service -> lookup), as an integrator drives them:
 * the spec's flow from creation to merge, the concurrency promises (gap-free numbers under
 * parallel creates, exactly one winner of two simultaneous PUTs), and the error envelopes.
 */
import { expect } from 'chai';
import { expectError } from '@tix/kit/testing';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request } from '../support/http.js';

const SEVERITY_FIELD = {
  name: 'severity',
  label: 'Severity',
  type: 'select',
  required: true,
  constraints: { allowed_values: ['low', 'high'] },
  default_value: null,
  order: 1,
};

interface TicketJson {
  id: number;
  ticket_number: string;
  project_ref_id: number;
  version: number;
  status: string;
  [field: string]: unknown;
}

describe('tickets through the fleet', () => {
  let project: ProjectFixture;
  let bugType: number;
  let key: Awaited<ReturnType<typeof createKey>>;
  let assignee: { id: number };

  before(async () => {
    project = await createProject();
    bugType = (await createTicketType(project.slug, { name: 'bug', slug: 'bug', fields: [SEVERITY_FIELD] }))
      .id;
    // A team lead's key: the spec flow deletes tickets (the roles table).
    key = await createKey({ project: project.slug, role: 'team_lead' });
    assignee = await createUser('agent');
  });

  const api = (method: string, path: string, body?: unknown, apiKey = key.key) =>
    request(`/v1${path}`, { method, key: apiKey, body });

  const create = (fields: Record<string, unknown>) =>
    createTicket<TicketJson>(key.key, {
      ticket_type_id: bugType,
      custom_fields: { severity: 'low' },
      ...fields,
    });

  it('runs the spec flow: create, get, list, update, conflict, move, board, bulk, delete, restore, merge', async () => {
    // Create: the whole ticket, numbered in the project.
    const first = await create({
      title: 'Printer on fire',
      description: 'Smoke from tray 2',
      priority: 'high',
      assigned_to: assignee.id,
      tags: ['Hardware'],
      custom_fields: { severity: 'high' },
    });
    expect(first).to.deep.equal({
      id: first.id,
      project_id: project.id,
      ticket_type_id: bugType,
      project_ref_id: 1,
      ticket_number: `${project.prefix}-1`,
      title: 'Printer on fire',
      description: 'Smoke from tray 2',
      status: 'open',
      status_label: 'Open',
      priority: 'high',
      priority_label: 'High',
      assigned_to: assignee.id,
      created_by: key.user_id,
      updated_by: null,
      custom_fields: { severity: 'high' },
      source_type: 'api',
      requester_id: null,
      cc: [],
      merged_into_id: null,
      version: 1,
      created_at: first.created_at,
      updated_at: first.updated_at,
      tags: ['hardware'],
      resolution_type: null,
      closed_at: null,
    });
    const second = await create({ title: 'Paper jam', priority: 'low' });
    const third = await create({ title: 'Toner low', priority: 'critical', description: 'printer says so' });

    // Get.
    expect((await api('GET', `/tickets/${first.id}`)).body).to.deep.equal({
      ok: true,
      data: { ticket: first },
    });

    // List: filters, sort (a literal '+' arrives as a space), q without pagination.
    const ids = async (query: string) => {
      const response = await api('GET', `/tickets?${query}`);
      expect(response.status, response.text).to.equal(200);
      return (response.body.data.tickets as TicketJson[]).map((ticket) => ticket.id);
    };
    expect(await ids('sort=+priority')).to.deep.equal([second.id, first.id, third.id]);
    expect(await ids('sort=-priority')).to.deep.equal([third.id, first.id, second.id]);
    expect(await ids('')).to.deep.equal([third.id, second.id, first.id]);
    expect(await ids('priority=low')).to.deep.equal([second.id]);
    expect(await ids(`assignee=${assignee.id}`)).to.deep.equal([first.id]);
    expect(await ids('status=open&sort=id')).to.deep.equal([first.id, second.id, third.id]);
    const search = await api('GET', '/tickets?q=PRINTER&sort=id');
    expect((search.body.data.tickets as TicketJson[]).map((ticket) => ticket.id)).to.deep.equal([
      first.id,
      third.id,
    ]);
    expect(search.body.data).not.to.have.property('pagination');
    const paged = await api('GET', '/tickets?per_page=2&page=2&sort=id');
    expect(paged.body.data.pagination).to.deep.equal({ total: 3, page: 2, per_page: 2, total_pages: 2 });

    // Update with the version read; the stale version then conflicts.
    const updated = await api('PUT', `/tickets/${second.id}`, { title: 'Paper jam, tray 1', version: 1 });
    expect(updated.body.data.ticket).to.deep.include({ title: 'Paper jam, tray 1', version: 2 });
    expectError(
      await api('PUT', `/tickets/${second.id}`, { title: 'Lost update', version: 1 }),
      409,
      'Ticket was modified by another user',
    );

    // Move with placement: third goes first in work_in_progress, second after it.
    await api('PATCH', `/tickets/${third.id}/status`, { status: 'work_in_progress' });
    const moved = await api('PATCH', `/tickets/${second.id}/status`, {
      status: 'work_in_progress',
      after_id: third.id,
    });
    expect(moved.body.data.ticket).to.deep.include({ status: 'work_in_progress', version: 3 });
    await api('PATCH', `/tickets/${first.id}/status`, { status: 'work_in_progress', before_id: third.id });

    // Board: every lane in workflow order, lane order, exact counts.
    const board = await api('GET', '/board');
    expect(Object.keys(board.body.data.lanes)).to.deep.equal(project.statuses.map((status) => status.slug));
    expect((board.body.data.lanes.work_in_progress as TicketJson[]).map((ticket) => ticket.id)).to.deep.equal(
      [first.id, third.id, second.id],
    );
    expect(board.body.data.counts).to.deep.equal({
      open: 0,
      work_in_progress: 3,
      waiting: 0,
      closed: 0,
      total: 3,
    });

    // Bulk: per-ticket results; an unknown id fails alone.
    const bulk = await api('POST', '/tickets/bulk-update', {
      ticket_ids: [first.id, third.id, 99_999_999],
      status: 'waiting',
      priority: 'medium',
    });
    expect(bulk.body.data).to.deep.include({ success_count: 2, failed_count: 1, failed_ids: [99_999_999] });
    // Bulk tags: a list replaces them, null clears them.
    await api('POST', '/tickets/bulk-update', { ticket_ids: [first.id], tags: ['vip'] });
    const untagged = await api('POST', '/tickets/bulk-update', { ticket_ids: [first.id], tags: null });
    expect(untagged.status, untagged.text).to.equal(200);
    expect(untagged.body.data.tickets[0]).to.deep.include({ id: first.id, tags: [] });
    expect((await api('GET', `/tickets/${first.id}`)).body.data.ticket.tags).to.deep.equal([]);

    // Delete: 404 everywhere afterwards, absent from lists and the board.
    expect((await api('DELETE', `/tickets/${third.id}`)).body).to.deep.equal({
      ok: true,
      data: { message: 'Ticket deleted' },
    });
    expectError(await api('GET', `/tickets/${third.id}`), 404, 'Ticket not found');
    expectError(await api('PUT', `/tickets/${third.id}`, { title: 'x' }), 404, 'Ticket not found');
    expectError(await api('DELETE', `/tickets/${third.id}`), 404, 'Ticket not found');
    expect(await ids('')).not.to.include(third.id);
    expect((await api('GET', '/board')).body.data.counts.total).to.equal(2);

    // Restore: back, version bumped; a second restore conflicts.
    const restored = await api('POST', `/tickets/${third.id}/restore`);
    expect(restored.status, restored.text).to.equal(200);
    expect((await api('GET', `/tickets/${third.id}`)).status).to.equal(200);
    expectError(await api('POST', `/tickets/${third.id}/restore`), 409, 'Ticket is not deleted');

    // Merge: the source closes as a duplicate of the target.
    const merged = await api('POST', `/tickets/${third.id}/merge`, { target_id: first.id });
    expect(merged.body.data.ticket).to.deep.include({
      merged_into_id: first.id,
      merged_into: first.id,
      status: 'closed',
      resolution_type: 'duplicate',
    });
    expectError(
      await api('POST', `/tickets/${third.id}/merge`, { target_id: first.id }),
      422,
      'Validation failed',
      {
        id: [`Ticket ${third.id} is already merged into ticket ${first.id}`],
      },
    );
  });

  it('numbers 50 parallel creates in one project 1..50, with no gap and no duplicate', async () => {
    const fresh = await createProject();
    const type = await createTicketType(fresh.slug, { name: 'task' });
    const freshKey = await createKey({ project: fresh.slug, scopes: 'tickets:read,tickets:write' });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        api('POST', '/tickets', { ticket_type_id: type.id, title: `Parallel ${index}` }, freshKey.key),
      ),
    );
    for (const response of responses) expect(response.status, response.text).to.equal(201);
    const created = responses.map((response) => response.body.data.ticket as TicketJson);
    const numbers = created.map((ticket) => ticket.project_ref_id).sort((a, b) => a - b);
    expect(numbers).to.deep.equal(Array.from({ length: 50 }, (_, index) => index + 1));
    expect(new Set(created.map((ticket) => ticket.ticket_number)).size).to.equal(50);
    for (const ticket of created) {
      expect(ticket.ticket_number).to.equal(`${fresh.prefix}-${ticket.project_ref_id}`);
    }
  });

  it('lets exactly one of two simultaneous PUTs with the same version win; the other gets 409', async () => {
    for (let round = 0; round < 5; round += 1) {
      const ticket = await create({ title: `Race ${round}` });
      const [left, right] = await Promise.all([
        api('PUT', `/tickets/${ticket.id}`, { title: `Left ${round}`, version: 1 }),
        api('PUT', `/tickets/${ticket.id}`, { title: `Right ${round}`, version: 1 }),
      ]);
      expect([left.status, right.status].sort(), `${left.text} ${right.text}`).to.deep.equal([200, 409]);
      const loser = left.status === 409 ? left : right;
      const winner = left.status === 200 ? left : right;
      expectError(loser, 409, 'Ticket was modified by another user');
      const stored = (await api('GET', `/tickets/${ticket.id}`)).body.data.ticket as TicketJson;
      expect(stored).to.deep.include({ version: 2, title: winner.body.data.ticket.title });
    }
  });

  it('answers the validation, scope and context errors, and never 500', async () => {
    expectError(await api('GET', '/tickets/abc'), 400, 'Invalid ticket id');
    expectError(await api('GET', '/tickets/0'), 400, 'Invalid ticket id');
    expectError(await api('GET', '/tickets/2147483648'), 400, 'Invalid ticket id');
    expectError(await api('GET', '/tickets?per_page=0'), 400, 'Invalid per_page', ['per_page']);
    expectError(await api('GET', '/tickets?per_page=101'), 400, 'Invalid per_page', ['per_page']);
    expectError(await api('GET', '/tickets?sort=name'), 400, 'Invalid sort', ['sort']);
    expectError(
      await api('POST', '/tickets', { ticket_type_id: bugType, title: 'x'.repeat(201) }),
      422,
      'Validation failed',
      ['title'],
    );
    expectError(
      await api('POST', '/tickets', { ticket_type_id: bugType, title: 'No severity' }),
      422,
      'Validation failed',
      ['custom_fields.severity'],
    );
    expectError(
      await api('POST', '/tickets/bulk-update', { ticket_ids: [], status: 'open' }),
      422,
      'Validation failed',
      ['ticket_ids'],
    );
    const readOnly = await createKey({ project: project.slug, scopes: 'tickets:read' });
    expectError(
      await api('POST', '/tickets', { ticket_type_id: bugType, title: 'x' }, readOnly.key),
      403,
      'Missing required scope: tickets:write',
    );
    const unscoped = await createKey({ scopes: 'tickets:read' });
    expectError(await api('GET', '/board', undefined, unscoped.key), 400, 'Project ID is required.');
    const viaBody = await createKey({ scopes: 'tickets:read,tickets:write' });
    const created = await api(
      'POST',
      '/tickets',
      {
        ticket_type_id: bugType,
        title: 'Project from the body',
        project_id: project.id,
        custom_fields: { severity: 'low' },
      },
      viaBody.key,
    );
    expect(created.status, created.text).to.equal(201);
    for (const body of [[], 'text', { title: { nested: true } }, { ticket_ids: 'all' }]) {
      for (const [method, path] of [
        ['POST', '/tickets'],
        ['PUT', '/tickets/1'],
        ['PATCH', '/tickets/1/status'],
        ['POST', '/tickets/bulk-update'],
        ['POST', '/tickets/1/merge'],
      ] as const) {
        const response = await api(method, path, body);
        expect(response.status, `${method} ${path}: ${response.text}`).to.be.lessThan(500);
      }
    }
  });
});
