/**
 * The ticket and board routes against the real lookup and ticket services (fresh databases): the
 * spec's ticket flows end to end through the gateway, and the service's errors reaching the client
 * as the spec's envelopes.
 */
import { expect } from 'chai';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { expectError, suiteFixture } from '@tix/kit/testing';
import { apiCaller } from '../support/test-gateway.js';
import { FIELD_SCHEMA } from '../support/fake-lookup.js';
import { apiKeyMaker, createAlphaAndBeta, createDefaultType } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

describe('ticket routes + real ticket and lookup services (fresh databases)', function () {
  this.timeout(60_000);
  const ids: { alpha: number; beta: number; bug: number; task: number; ada: number; al: number } =
    {} as never;
  const keys: { full: string; noDelete: string; scopedBeta: string } = {} as never;

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_tickets',
      seed: async (admin) => {
        const { alpha, beta } = await createAlphaAndBeta(admin);
        const bug = await admin.CreateTicketType({
          project_slug: 'alpha',
          name: 'Bug',
          slug: 'bug',
          description: '',
          is_default: true,
          field_schema_json: JSON.stringify(FIELD_SCHEMA),
        });
        const task = await createDefaultType(admin, 'beta');
        const ada = await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' });
        const al = await admin.CreateUser({ name: 'Al', email: 'al@example.com', role: 'agent' });
        Object.assign(ids, { alpha, beta, bug: bug.id, task, ada: ada.id, al: al.id });
        const key = apiKeyMaker(admin, 'ada@example.com');
        keys.full = await key(['tickets:read', 'tickets:write', 'tickets:delete']);
        keys.noDelete = await key(['tickets:read', 'tickets:write']);
        keys.scopedBeta = await key(['tickets:read', 'tickets:write', 'tickets:delete'], 'beta');
      },
      peers: {
        tickets: ({ lookup }) => startTestTicketServer({ lookupAddress: lookup, label: 'gateway_tickets' }),
      },
    }),
  );

  const call = apiCaller(
    () => fleet.gateway,
    () => keys.full,
  );

  async function create(body: Record<string, unknown>, project = 'alpha'): Promise<Record<string, any>> {
    const response = await call('POST', `/tickets?project=${project}`, body);
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data.ticket as Record<string, any>;
  }

  it('creates a ticket and answers it whole; GET answers the same', async () => {
    const created = await create({
      ticket_type_id: ids.bug,
      title: '  Printer on fire ',
      description: 'Smoke',
      assigned_to: ids.al,
      custom_fields: { severity: 'high' },
      tags: ['Hardware', 'hardware '],
    });
    expect(created).to.deep.equal({
      id: created.id,
      project_id: ids.alpha,
      ticket_type_id: ids.bug,
      project_ref_id: 1,
      ticket_number: 'ALP-1',
      title: 'Printer on fire',
      description: 'Smoke',
      status: 'open',
      status_label: 'Open',
      priority: 'medium',
      priority_label: 'Medium',
      assigned_to: ids.al,
      created_by: ids.ada,
      updated_by: null,
      custom_fields: { severity: 'high' },
      source_type: 'api',
      requester_id: null,
      cc: [],
      merged_into_id: null,
      version: 1,
      created_at: created.created_at,
      updated_at: created.updated_at,
      tags: ['hardware'],
      resolution_type: null,
      closed_at: null,
    });
    expect(Date.parse(created.created_at)).to.be.a('number').and.not.NaN;
    const fetched = await call('GET', `/tickets/${created.id}?project_id=${ids.alpha}`);
    expect(fetched.body).to.deep.equal({ ok: true, data: { ticket: created } });
  });

  it("passes the service's 422s through: custom fields, ticket type, assignee", async () => {
    for (const [body, fields] of [
      [{ ticket_type_id: ids.bug, title: 'x' }, ['custom_fields.severity']],
      [
        { ticket_type_id: ids.bug, title: 'x', custom_fields: { severity: 'medium', colour: 'red' } },
        ['custom_fields.severity', 'custom_fields.colour'],
      ],
      [{ ticket_type_id: ids.task, title: 'x' }, ['ticket_type_id']],
      [
        { ticket_type_id: ids.bug, title: 'x', assigned_to: 999_999, custom_fields: { severity: 'low' } },
        ['assigned_to'],
      ],
    ] as const) {
      expectError(await call('POST', '/tickets?project=alpha', body), 422, 'Validation failed', fields);
    }
  });

  it('updates with a version (+1), refuses a stale one with 409, unassigns with 0', async () => {
    const ticket = await create({
      ticket_type_id: ids.bug,
      title: 'To edit',
      custom_fields: { severity: 'low' },
    });
    const path = `/tickets/${ticket.id}?project=alpha`;
    const updated = await call('PUT', path, {
      title: 'Edited',
      priority: 'critical',
      assigned_to: ids.al,
      description: 'now described',
      version: 1,
    });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(updated.body.data.ticket).to.deep.include({
      title: 'Edited',
      priority: 'critical',
      priority_label: 'Critical',
      assigned_to: ids.al,
      description: 'now described',
      version: 2,
      updated_by: ids.ada,
    });
    expectError(
      await call('PUT', path, { title: 'Stale', version: 1 }),
      409,
      'Ticket was modified by another user',
    );
    const cleared = await call('PUT', path, { assigned_to: 0, description: null, version: 2 });
    expect(cleared.body.data.ticket).to.deep.include({ assigned_to: null, description: null, version: 3 });
    expectError(await call('PUT', path, { status: 'nope' }), 422, 'Validation failed', ['status']);
  });

  it('moves with placement and resolution; the board shows lanes in workflow order with exact counts', async () => {
    const project = (
      await fleet.admin.CreateProject({ name: 'Gamma', slug: 'gamma', prefix: 'GAM', description: '' })
    ).slug;
    const typeId = await createDefaultType(fleet.admin, project);
    const first = await create({ ticket_type_id: typeId, title: 'A' }, project);
    const second = await create({ ticket_type_id: typeId, title: 'B' }, project);
    const third = await create({ ticket_type_id: typeId, title: 'C' }, project);
    const move = (id: number, body: unknown) =>
      call('PATCH', `/tickets/${id}/status?project=${project}`, body);

    expect((await move(first.id, { status: 'work_in_progress' })).body.data.ticket).to.deep.include({
      status: 'work_in_progress',
      status_label: 'Work in progress',
      version: 2,
    });
    await move(second.id, { status: 'work_in_progress', before_id: first.id });
    await move(third.id, { status: 'work_in_progress', after_id: second.id });
    expectError(
      await move(first.id, { status: 'open', resolution_type: 'resolved' }),
      422,
      'Validation failed',
      ['resolution_type'],
    );
    const closed = await move(first.id, { status: 'closed', resolution_type: 'wont_fix' });
    expect(closed.body.data.ticket).to.deep.include({ status: 'closed', resolution_type: 'wont_fix' });
    // closed_at (additive) passes through the gateway as the service writes it.
    expect(Date.parse(closed.body.data.ticket.closed_at)).to.be.closeTo(Date.now(), 60_000);
    const reopened = await move(first.id, { status: 'open' });
    expect(reopened.body.data.ticket).to.deep.include({ status: 'open', resolution_type: null });

    const board = await call('GET', `/board?project=${project}`);
    expect(board.status).to.equal(200);
    expect(Object.keys(board.body.data.lanes)).to.deep.equal([
      'open',
      'work_in_progress',
      'waiting',
      'closed',
    ]);
    const lane = (slug: string) => (board.body.data.lanes[slug] as { id: number }[]).map((t) => t.id);
    expect(lane('work_in_progress')).to.deep.equal([second.id, third.id]);
    expect(lane('open')).to.deep.equal([first.id]);
    expect(board.body.data.counts).to.deep.equal({
      open: 1,
      work_in_progress: 2,
      waiting: 0,
      closed: 0,
      total: 3,
    });
    const capped = await call('GET', `/board?project=${project}&lane_limit=1`);
    expect(capped.body.data.lanes.work_in_progress).to.have.length(1);
    expect(capped.body.data.counts.work_in_progress).to.equal(2);
  });

  it('lists with filters, sort, q and pagination', async () => {
    const project = (
      await fleet.admin.CreateProject({ name: 'Delta', slug: 'delta', prefix: 'DEL', description: '' })
    ).slug;
    const typeId = await createDefaultType(fleet.admin, project);
    const low = await create({ ticket_type_id: typeId, title: 'Low printer', priority: 'low' }, project);
    const critical = await create(
      {
        ticket_type_id: typeId,
        title: 'Critical',
        priority: 'critical',
        assigned_to: ids.al,
        tags: ['vip'],
      },
      project,
    );
    const high = await create(
      { ticket_type_id: typeId, title: 'High', priority: 'high', description: 'the PRINTER again' },
      project,
    );
    const list = async (query: string) => {
      const response = await call('GET', `/tickets?project=${project}&${query}`);
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      return response.body.data as { tickets: { id: number }[]; pagination?: unknown };
    };
    const idsOf = (data: { tickets: { id: number }[] }) => data.tickets.map((t) => t.id);
    expect(idsOf(await list('sort=priority'))).to.deep.equal([low.id, high.id, critical.id]);
    expect(idsOf(await list('sort=-priority'))).to.deep.equal([critical.id, high.id, low.id]);
    expect(idsOf(await list('sort=%2Bid'))).to.deep.equal([low.id, critical.id, high.id]);
    expect(idsOf(await list('sort=+id'))).to.deep.equal([low.id, critical.id, high.id]);
    expect(idsOf(await list(''))).to.deep.equal([high.id, critical.id, low.id]);
    expect(idsOf(await list('priority=high'))).to.deep.equal([high.id]);
    expect(idsOf(await list(`assignee=${ids.al}`))).to.deep.equal([critical.id]);
    expect(idsOf(await list('tag=VIP'))).to.deep.equal([critical.id]);
    const searched = await list('q=printer&sort=id');
    expect(idsOf(searched)).to.deep.equal([low.id, high.id]);
    expect(searched).not.to.have.property('pagination');
    const page = await list('per_page=2&page=2&sort=id');
    expect(idsOf(page)).to.deep.equal([high.id]);
    expect(page.pagination).to.deep.equal({ total: 3, page: 2, per_page: 2, total_pages: 2 });
    const beyond = await list('per_page=2&page=9');
    expect(beyond).to.deep.equal({
      tickets: [],
      pagination: { total: 3, page: 9, per_page: 2, total_pages: 2 },
    });
    expectError(await call('GET', `/tickets?project=${project}&status=done`), 400, 'Invalid status', [
      'status',
    ]);
  });

  it('bulk-updates per ticket; delete hides everywhere; restore brings back; merge closes as duplicate', async () => {
    const one = await create({ ticket_type_id: ids.task, title: 'One' }, 'beta');
    const two = await create({ ticket_type_id: ids.task, title: 'Two' }, 'beta');
    const other = await create({
      ticket_type_id: ids.bug,
      title: 'Alpha',
      custom_fields: { severity: 'low' },
    });
    const bulk = await call(
      'POST',
      '/tickets/bulk-update',
      {
        ticket_ids: [one.id, two.id, other.id, 999_999],
        status: 'waiting',
        tags: ['Batch'],
      },
      keys.scopedBeta,
    );
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
    expect(bulk.body.data).to.deep.include({ success_count: 2, failed_count: 2 });
    expect(bulk.body.data.failed_ids).to.have.members([other.id, 999_999]);
    for (const updated of bulk.body.data.tickets) {
      expect(updated).to.deep.include({ status: 'waiting', tags: ['batch'], version: 2 });
    }

    const beta = (method: string, path: string, body?: unknown, key = keys.scopedBeta) =>
      call(method, path, body, key);
    expectError(
      await beta('DELETE', `/tickets/${one.id}`, undefined, keys.noDelete),
      403,
      'Missing required scope: tickets:delete',
    );
    expect((await beta('DELETE', `/tickets/${one.id}`)).body).to.deep.equal({
      ok: true,
      data: { message: 'Ticket deleted' },
    });
    expectError(await beta('GET', `/tickets/${one.id}`), 404, 'Ticket not found');
    expectError(await beta('PUT', `/tickets/${one.id}`, { title: 'x' }), 404, 'Ticket not found');
    expectError(
      await beta('PATCH', `/tickets/${one.id}/status`, { status: 'open' }),
      404,
      'Ticket not found',
    );
    expectError(await beta('DELETE', `/tickets/${one.id}`), 404, 'Ticket not found');
    const listed = await beta('GET', '/tickets');
    expect((listed.body.data.tickets as { id: number }[]).map((t) => t.id)).not.to.include(one.id);
    const board = await beta('GET', '/board');
    expect(JSON.stringify(board.body.data.lanes)).not.to.contain(`"id":${one.id},`);
    const bulkDeleted = await beta('POST', '/tickets/bulk-update', { ticket_ids: [one.id], priority: 'low' });
    expect(bulkDeleted.body.data).to.deep.include({ success_count: 0, failed_ids: [one.id] });

    const restored = await beta('POST', `/tickets/${one.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).to.equal(200);
    // Deleting counted as a change too, so the restored version is past the bulk update's 2.
    const restoredVersion = restored.body.data.ticket.version as number;
    expect(restored.body.data.ticket).to.deep.include({ id: one.id, status: 'waiting' });
    expect(restoredVersion).to.be.greaterThan(2);
    expect((await beta('GET', `/tickets/${one.id}`)).body.data.ticket.version).to.equal(restoredVersion);
    expectError(await beta('POST', `/tickets/${one.id}/restore`), 409, 'Ticket is not deleted');

    const merged = await beta('POST', `/tickets/${one.id}/merge`, { target_id: two.id });
    expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
    expect(merged.body.data.ticket).to.deep.include({
      merged_into_id: two.id,
      merged_into: two.id,
      status: 'closed',
      resolution_type: 'duplicate',
      version: restoredVersion + 1,
    });
    expectError(
      await beta('POST', `/tickets/${two.id}/merge`, { target_id: two.id }),
      422,
      'Validation failed',
      ['target_id'],
    );
    expectError(
      await beta('POST', `/tickets/${one.id}/merge`, { target_id: two.id }),
      422,
      'Validation failed',
      {
        id: [`Ticket ${one.id} is already merged into ticket ${two.id}`],
      },
    );
  });

  it('answers the gateway errors without calling the service, and never 500', async () => {
    expectError(await call('GET', '/tickets/abc?project=alpha'), 400, 'Invalid ticket id');
    expectError(await call('GET', '/tickets'), 400, 'Project ID is required.');
    expectError(
      await call('GET', `/tickets/1?project_id=${ids.alpha}`, undefined, keys.scopedBeta),
      404,
      'Project not found',
    );
    const bodies = [{}, [], { title: 5 }, { ticket_ids: [] }, { status: 'x'.repeat(65) }, { target_id: -1 }];
    for (const path of [
      '/tickets',
      '/tickets/1',
      '/tickets/1/status',
      '/tickets/bulk-update',
      '/tickets/1/merge',
    ]) {
      for (const method of ['POST', 'PUT', 'PATCH']) {
        for (const body of bodies) {
          const response = await call(method, `${path}?project=alpha`, body);
          expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).to.be.lessThan(500);
        }
      }
    }
  });
});
