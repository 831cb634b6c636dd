/**
 * The ticket action and board routes over real HTTP (fake lookup and ticket service over real gRPC),
 * plus the rules every ticket route shares: scopes, project context, a missing ticket service, and
 * no 500 for any bad input.
 */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { expectError } from '@tix/kit/testing';
import { FULL_KEY, SCOPED_KEY } from '../support/fake-lookup.js';
import { TICKET_JSON } from '../support/fake-tickets.js';
import { READ_ONLY_KEY, useFakeTicketGateway } from '../support/fake-ticket-gateway.js';
import { bearer, request, startTestGateway } from '../support/test-gateway.js';

describe('ticket action and board routes (fakes over gRPC)', () => {
  const fakes = useFakeTicketGateway();
  const call = fakes.call.bind(fakes);

  describe('PATCH /v1/tickets/{id}/status', () => {
    it('sends status, placement and resolution; null means not given', async () => {
      const response = await call('PATCH', '/tickets/42/status?project_id=1', {
        body: { status: 'closed', after_id: 7, before_id: null, resolution_type: 'wont_fix' },
      });
      expect(response.body.data.ticket).to.deep.equal({
        ...TICKET_JSON,
        status: 'closed',
        status_label: 'Closed',
        version: 2,
      });
      expect(fakes.tickets.lastRequest.MoveTicket).to.deep.equal({
        project_id: 1,
        id: 42,
        status: 'closed',
        after_id: 7,
        _after_id: 'after_id',
        resolution_type: 'wont_fix',
        _resolution_type: 'resolution_type',
      });
    });

    it('answers 422 for a missing status and bad placement or resolution', async () => {
      expectError(await call('PATCH', '/tickets/42/status?project_id=1'), 422, 'Validation failed', {
        status: ['Status is required'],
      });
      expectError(
        await call('PATCH', '/tickets/42/status?project_id=1', {
          body: { status: '', after_id: 'x', before_id: 0, resolution_type: 'fixed' },
        }),
        422,
        'Validation failed',
        {
          status: ['Status cannot be empty'],
          after_id: ['After ID must be an integer'],
          before_id: ['Before ID must be at least 1'],
          resolution_type: ['Resolution type must be one of resolved, wont_fix, duplicate'],
        },
      );
    });

    it('is PATCH only (405 with Allow)', async () => {
      const response = await call('POST', '/tickets/42/status?project_id=1', { body: { status: 'open' } });
      expectError(response, 405, 'Method POST not allowed on /v1/tickets/42/status');
      expect(response.headers.get('allow')).to.equal('PATCH, OPTIONS');
    });
  });

  describe('POST /v1/tickets/bulk-update', () => {
    it('sends the collapsed ids and the changes; answers the per-ticket result', async () => {
      const response = await call('POST', '/tickets/bulk-update?project_id=1', {
        body: { ticket_ids: [42, 43, 42, 44], status: 'closed', assigned_to: 0, tags: ['VIP'] },
      });
      expect(response.body).to.deep.equal({
        ok: true,
        data: {
          success_count: 1,
          failed_count: 2,
          failed_ids: [43, 44],
          tickets: [{ ...TICKET_JSON, version: 2 }],
        },
      });
      expect(fakes.tickets.lastRequest.BulkUpdateTickets).to.deep.equal({
        project_id: 1,
        ticket_ids: [42, 43, 44],
        status: 'closed',
        _status: 'status',
        assigned_to: {},
        tags: { values: ['vip'] },
      });
    });

    it('tags: null clears the tags of every listed ticket (an empty list to the service)', async () => {
      const response = await call('POST', '/tickets/bulk-update?project_id=1', {
        body: { ticket_ids: [42, 43], tags: null },
      });
      expect(response.status).to.equal(200);
      expect(response.body.data.success_count).to.equal(1);
      expect(fakes.tickets.lastRequest.BulkUpdateTickets).to.deep.equal({
        project_id: 1,
        ticket_ids: [42, 43],
        assigned_to: null,
        tags: { values: [] },
      });
    });

    it('answers 422 for 0 or 101 ids, bad ids, statuses outside the defaults, and no change', async () => {
      const cases: [unknown, Record<string, string[]>][] = [
        [{ status: 'open' }, { ticket_ids: ['Ticket IDs are required'] }],
        [{ ticket_ids: [], status: 'open' }, { ticket_ids: ['Give at least 1 ticket ID'] }],
        [
          { ticket_ids: Array.from({ length: 101 }, (_, i) => i + 1), status: 'open' },
          { ticket_ids: ['Give at most 100 ticket IDs'] },
        ],
        [{ ticket_ids: '1,2', status: 'open' }, { ticket_ids: ['Ticket IDs must be an array of integers'] }],
        [
          { ticket_ids: [1, 'x', 0], status: 'open' },
          {
            'ticket_ids[1]': ['Ticket ID must be an integer'],
            'ticket_ids[2]': ['Ticket ID must be at least 1'],
          },
        ],
        [
          { ticket_ids: [1], status: 'resolved' },
          { status: ['Status must be one of open, work_in_progress, waiting, closed'] },
        ],
        [
          { ticket_ids: [1], assigned_to: null },
          { body: ['Give at least one field to change: status, priority, assigned_to or tags'] },
        ],
        [
          { ticket_ids: [1] },
          { body: ['Give at least one field to change: status, priority, assigned_to or tags'] },
        ],
      ];
      for (const [body, errors] of cases) {
        expectError(
          await call('POST', '/tickets/bulk-update?project_id=1', { body }),
          422,
          'Validation failed',
          errors,
        );
      }
      expect(fakes.tickets.calls.BulkUpdateTickets).to.equal(undefined);
    });

    it('is a path of its own: GET is 405, not a ticket id', async () => {
      const response = await call('GET', '/tickets/bulk-update?project_id=1');
      expectError(response, 405, 'Method GET not allowed on /v1/tickets/bulk-update');
      expect(response.headers.get('allow')).to.equal('POST, OPTIONS');
    });
  });

  describe('POST /v1/tickets/{id}/merge and /restore', () => {
    it('merge sends the target and answers the source with merged_into', async () => {
      const response = await call('POST', '/tickets/42/merge?project_id=1', { body: { target_id: 41 } });
      expect(response.body.data.ticket).to.deep.equal({
        ...TICKET_JSON,
        status: 'closed',
        status_label: 'Closed',
        resolution_type: 'duplicate',
        merged_into_id: 41,
        merged_into: 41,
        version: 2,
      });
      expect(fakes.tickets.lastRequest.MergeTicket).to.deep.equal({ project_id: 1, id: 42, target_id: 41 });
      expectError(
        await call('POST', '/tickets/42/merge?project_id=1', { body: {} }),
        422,
        'Validation failed',
        {
          target_id: ['Target ID is required'],
        },
      );
    });

    it('restore answers the ticket; 409 from the service passes through', async () => {
      const response = await call('POST', '/tickets/42/restore?project_id=1');
      expect(response.body).to.deep.equal({ ok: true, data: { ticket: { ...TICKET_JSON, version: 3 } } });
      fakes.tickets.override('RestoreTicket', () => {
        throw AppError.conflict('Ticket is not deleted');
      });
      expectError(await call('POST', '/tickets/42/restore?project_id=1'), 409, 'Ticket is not deleted');
    });
  });

  describe('GET /v1/board', () => {
    it('answers lanes keyed by status in workflow order and counts with total', async () => {
      const response = await call('GET', '/board?project_id=1&priority=high&assignee=11');
      expect(response.body).to.deep.equal({
        ok: true,
        data: { lanes: { open: [TICKET_JSON], closed: [] }, counts: { open: 3, closed: 0, total: 3 } },
      });
      expect(Object.keys(response.body.data.lanes)).to.deep.equal(['open', 'closed']);
      expect(fakes.tickets.lastRequest.GetBoard).to.deep.equal({
        project_id: 1,
        priority: 'high',
        _priority: 'priority',
        assignee: 11,
        _assignee: 'assignee',
      });
      await call('GET', '/board?project_id=1&lane_limit=500');
      expect(fakes.tickets.lastRequest.GetBoard.lane_limit).to.equal(500);
    });

    it('answers 400 for bad filters and lane_limit, and without project context', async () => {
      expectError(await call('GET', '/board?project_id=1&lane_limit=0'), 400, 'Invalid lane_limit', {
        lane_limit: ['lane_limit must be an integer from 1 to 500'],
      });
      expectError(
        await call('GET', '/board?project_id=1&lane_limit=501&priority=p1'),
        400,
        'Invalid priority, lane_limit',
        {
          priority: ['priority must be one of low, medium, high, critical'],
          lane_limit: ['lane_limit must be an integer from 1 to 500'],
        },
      );
      expectError(await call('GET', '/board'), 400, 'Project ID is required.');
    });
  });

  describe('scopes and project context on every route', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/tickets'],
      ['POST', '/tickets', { ticket_type_id: 1, title: 'x' }],
      ['GET', '/tickets/42'],
      ['PUT', '/tickets/42', { title: 'x' }],
      ['DELETE', '/tickets/42'],
      ['PATCH', '/tickets/42/status', { status: 'open' }],
      ['POST', '/tickets/bulk-update', { ticket_ids: [42], status: 'open' }],
      ['POST', '/tickets/42/merge', { target_id: 41 }],
      ['POST', '/tickets/42/restore'],
      ['GET', '/board'],
    ];

    it('writes need tickets:write, DELETE tickets:delete, reads tickets:read (403 before anything else)', async () => {
      for (const [method, path, body] of routes) {
        const scope = method === 'DELETE' ? 'tickets:delete' : method === 'GET' ? null : 'tickets:write';
        const response = await call(method, `${path}?project_id=1`, { key: READ_ONLY_KEY, body });
        if (scope) expectError(response, 403, `Missing required scope: ${scope}`);
        else expect(response.status, `${method} ${path}`).to.equal(200);
      }
      const noRead = await call('GET', '/tickets/abc', { key: 'tix_comments_only_key_0003' });
      expectError(noRead, 403, 'Missing required scope: tickets:read');
    });

    it('every route needs project context (400), and answers inside it', async () => {
      for (const [method, path, body] of routes) {
        expectError(await call(method, path, { body }), 400, 'Project ID is required.');
        const response = await call(method, `${path}?project=globex`, { body });
        expect(response.status, `${method} ${path}`).to.be.oneOf([200, 201]);
      }
      expect(Object.values(fakes.tickets.lastRequest).map((sent): unknown => sent.project_id)).to.deep.equal(
        Array(Object.keys(fakes.tickets.lastRequest).length).fill(2),
      );
    });

    it('a scoped key acts in its project and cannot name another (404)', async () => {
      await call('GET', '/tickets/42', { key: SCOPED_KEY });
      expect(fakes.tickets.lastRequest.GetTicket).to.deep.equal({ project_id: 2, id: 42 });
      expect(fakes.tickets.lastContext.GetTicket?.principal?.key_id).to.equal(2);
      expectError(
        await call('GET', '/tickets/42?project_id=1', { key: SCOPED_KEY }),
        404,
        'Project not found',
      );
    });

    it('passes the principal and correlation id to the service', async () => {
      const response = await request(`${fakes.gateway.apiUrl}/v1/tickets/42?project_id=1`, {
        headers: { ...bearer(FULL_KEY), 'X-Correlation-ID': 'corr-tickets-1' },
      });
      expect(response.status).to.equal(200);
      expect(fakes.tickets.lastContext.GetTicket?.correlationId).to.equal('corr-tickets-1');
      expect(fakes.tickets.lastContext.GetTicket?.principal).to.deep.equal({
        kind: 'api_key',
        user_id: 10,
        role: 'admin',
        scopes: ['tickets:read', 'tickets:write', 'tickets:delete', 'comments:read', 'comments:write'],
        key_id: 1,
      });
    });
  });

  it('answers 503 when the ticket service is not deployed', async () => {
    const bare = await startTestGateway({ services: { lookup: fakes.lookup.address } });
    try {
      const response = await request(`${bare.apiUrl}/v1/tickets?project_id=1`, { headers: bearer(FULL_KEY) });
      expectError(response, 503, 'The tickets service is not deployed');
    } finally {
      await bare.close();
    }
  });

  it('never answers 500 to bad input', async () => {
    const weird = ['', '{}', '[]', 'null', '0', '"x"', '{"title":{"a":1}}', '{"ticket_ids":[1e400]}'];
    const paths = [
      '/tickets',
      '/tickets/42',
      '/tickets/42/status',
      '/tickets/bulk-update',
      '/tickets/42/merge',
    ];
    for (const path of paths) {
      for (const method of ['POST', 'PUT', 'PATCH']) {
        for (const raw of weird) {
          const response = await call(method, `${path}?project_id=1`, raw === '' ? {} : { raw });
          expect(response.status, `${method} ${path} ${raw}`).to.be.lessThan(500);
        }
      }
    }
    for (const query of ['page=%FF', 'sort=%00', 'status=a&status=b', 'page[]=1&page=x']) {
      expect((await call('GET', `/tickets?project_id=1&${query}`)).status, query).to.equal(400);
    }
    // Not-quite-UTF-8 is just an odd value; a bracketed name is an unknown parameter (400 naming it).
    expect((await call('GET', '/tickets?project_id=1&q=%E2%82')).status).to.equal(200);
    expect(
      (await call('GET', '/tickets?project_id=1&per_page[]=1')).body.error?.validation_errors,
    ).to.deep.equal({
      'per_page[]': ['Unknown query parameter: per_page[]'],
    });
  });
});
