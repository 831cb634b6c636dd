/**
 * The ticket CRUD and list routes over real HTTP, against a fake lookup and a fake ticket service over
 * real gRPC: what each route sends to the service (as the service decodes it), what it answers, and
 * every error envelope the gateway itself produces (ids, query, body). See ticket-action-routes.test.ts
 * for status, bulk, merge, restore, the board, scopes and project context.
 */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { expectError } from '@tix/kit/testing';
import { TICKET_JSON, ticketMessage, ticketsJsonBatch } from '../support/fake-tickets.js';
import { READ_WRITE_KEY, useFakeTicketGateway } from '../support/fake-ticket-gateway.js';

describe('ticket routes: list, create, get, update, delete (fakes over gRPC)', () => {
  const fakes = useFakeTicketGateway();
  const call = fakes.call.bind(fakes);

  describe('GET /v1/tickets', () => {
    it('sends the defaults and answers tickets with pagination', async () => {
      const response = await call('GET', '/tickets?project_id=1');
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({
        ok: true,
        data: { tickets: [TICKET_JSON], pagination: { total: 1, page: 1, per_page: 50, total_pages: 1 } },
      });
      expect(fakes.tickets.lastRequest.ListTickets).to.deep.equal({
        project_id: 1,
        page: { page: 1, per_page: 50 },
        sort: '-created_at',
      });
    });

    it('passes every filter, normalising sort and tag; an unknown parameter is 400 naming it', async () => {
      const refused = await call('GET', '/tickets?project=acme&status=closed&colour=red');
      expectError(refused, 400, 'Invalid colour', { colour: ['Unknown query parameter: colour'] });
      expect(fakes.tickets.calls.ListTickets).to.equal(undefined);
      await call(
        'GET',
        '/tickets?project=acme&page=2&per_page=10&sort=-priority&status=closed&priority=high&assignee=11&tag=%20Billing',
      );
      expect(fakes.tickets.lastRequest.ListTickets).to.deep.equal({
        project_id: 1,
        page: { page: 2, per_page: 10 },
        sort: '-priority',
        status: 'closed',
        _status: 'status',
        priority: 'high',
        _priority: 'priority',
        assignee: 11,
        _assignee: 'assignee',
        tag: 'billing',
        _tag: 'tag',
      });
    });

    it("reads a leading '+', a space (a decoded '+') or a bare field as ascending", async () => {
      for (const sort of ['%2Btitle', '+title', 'title', '%20title']) {
        await call('GET', `/tickets?project_id=1&sort=${sort}`);
        expect(fakes.tickets.lastRequest.ListTickets.sort, sort).to.equal('+title');
      }
    });

    it('with q streams every match and no pagination', async () => {
      const response = await call('GET', '/tickets?project_id=1&q=printer&sort=-id&status=open');
      expect(response.body).to.deep.equal({ ok: true, data: { tickets: [TICKET_JSON] } });
      expect(fakes.tickets.lastRequest.SearchTicketsJson).to.deep.include({
        q: 'printer',
        sort: '-id',
        status: 'open',
      });
      expect(fakes.tickets.calls.ListTickets).to.equal(undefined);
    });

    it('with q streams thousands of matches as one valid JSON document', async () => {
      // Batches of 500 as the service's cursor reads them, and an empty one (a last FETCH).
      const matches = Array.from({ length: 3_000 }, (_, i) =>
        ticketMessage({ id: i + 1, title: `match ${i}` }),
      );
      fakes.tickets.override('SearchTicketsJson', () => [
        ...Array.from({ length: 6 }, (_, batch) =>
          ticketsJsonBatch(matches.slice(batch * 500, (batch + 1) * 500)),
        ),
        ticketsJsonBatch([]),
      ]);
      const response = await call('GET', '/tickets?project_id=1&q=match');
      expect(response.status).to.equal(200);
      expect(response.body.data.tickets).to.have.length(3_000);
      expect(response.body.data.tickets[2_999]).to.include({ id: 3_000, title: 'match 2999' });
      expect(response.body.data).to.not.have.property('pagination');
    });

    it('with q answers a service refusal before any match as the error envelope', async () => {
      fakes.tickets.override('SearchTicketsJson', () => {
        throw AppError.badRequest('Invalid q', { q: ['q must not contain NUL characters'] });
      });
      const response = await call('GET', '/tickets?project_id=1&q=x');
      expectError(response, 400, 'Invalid q', { q: ['q must not contain NUL characters'] });
    });

    it('answers 400 with validation_errors per parameter, without calling the service', async () => {
      const cases: [string, Record<string, string[]>][] = [
        ['per_page=0', { per_page: ['per_page must be an integer from 1 to 100'] }],
        ['per_page=101', { per_page: ['per_page must be an integer from 1 to 100'] }],
        ['per_page=1.5', { per_page: ['per_page must be an integer from 1 to 100'] }],
        ['page=0', { page: ['page must be a positive integer'] }],
        ['page=abc', { page: ['page must be a positive integer'] }],
        ['page=1&page=2', { page: ['page must be a positive integer'] }],
        [
          'sort=name',
          {
            sort: [
              'sort must be one of id, title, status, priority, created_at, updated_at, assigned_to, optionally prefixed with + (ascending) or - (descending)',
            ],
          },
        ],
        ['priority=urgent', { priority: ['priority must be one of low, medium, high, critical'] }],
        ['assignee=bob', { assignee: ['assignee must be a user id (a positive integer) or none'] }],
        ['assignee=0', { assignee: ['assignee must be a user id (a positive integer) or none'] }],
        ['q=', { q: ['q must be 1 to 200 characters'] }],
        [`q=${'x'.repeat(201)}`, { q: ['q must be 1 to 200 characters'] }],
        ['tag=', { tag: ['tag must be 1 to 50 characters'] }],
        ['status=work_in_progress', { status: ['status must be a status of the project: open, closed'] }],
      ];
      for (const [query, errors] of cases) {
        const response = await call('GET', `/tickets?project_id=1&${query}`);
        expectError(response, 400, `Invalid ${Object.keys(errors).join(', ')}`, errors);
      }
      const both = await call('GET', '/tickets?project_id=1&page=0&per_page=500');
      expectError(both, 400, 'Invalid page, per_page', {
        page: ['page must be a positive integer'],
        per_page: ['per_page must be an integer from 1 to 100'],
      });
      expect(fakes.tickets.calls.ListTickets).to.equal(undefined);
    });
  });

  describe('POST /v1/tickets', () => {
    it('creates (201) and sends a clean, normalised request', async () => {
      const response = await call('POST', '/tickets?project_id=1', {
        body: {
          ticket_type_id: 1,
          title: '  Printer on fire  ',
          description: 'Smoke everywhere',
          priority: 'high',
          assigned_to: 11,
          custom_fields: { severity: 'high' },
          tags: ['Billing', ' billing ', 'VIP'],
          created_by: 999,
          id: 5,
        },
      });
      expect(response.status).to.equal(201);
      expect(response.body).to.deep.equal({ ok: true, data: { ticket: TICKET_JSON } });
      expect(fakes.tickets.lastRequest.CreateTicket).to.deep.equal({
        project_id: 1,
        ticket_type_id: 1,
        title: 'Printer on fire',
        description: 'Smoke everywhere',
        _description: 'description',
        priority: 'high',
        _priority: 'priority',
        assigned_to: 11,
        _assigned_to: 'assigned_to',
        custom_fields_json: '{"severity":"high"}',
        tags: ['billing', 'vip'],
        cc: [],
      });
    });

    it('leaves optional fields absent when omitted or null (0 assigns nobody)', async () => {
      await call('POST', '/tickets?project_id=1', {
        body: { ticket_type_id: 2, title: 'Hello', description: null, assigned_to: 0, tags: null },
      });
      expect(fakes.tickets.lastRequest.CreateTicket).to.deep.equal({
        project_id: 1,
        ticket_type_id: 2,
        title: 'Hello',
        custom_fields_json: '',
        tags: [],
        cc: [],
      });
    });

    it('takes the project from body project_id, after the query; a scoped key uses its scope', async () => {
      await call('POST', '/tickets', { body: { ticket_type_id: 1, title: 'x', project_id: 2 } });
      expect(fakes.tickets.lastRequest.CreateTicket.project_id).to.equal(2);
      await call('POST', '/tickets?project_id=1', { body: { ticket_type_id: 1, title: 'x', project_id: 2 } });
      expect(fakes.tickets.lastRequest.CreateTicket.project_id).to.equal(1);
      expectError(
        await call('POST', '/tickets', { body: { ticket_type_id: 1, title: 'x' } }),
        400,
        'Project ID is required.',
      );
      expectError(
        await call('POST', '/tickets', { body: { ticket_type_id: 1, title: 'x', project_id: 'one' } }),
        400,
        'Invalid project_id',
        { project_id: ['must be an integer'] },
      );
    });

    it('answers 422 naming every bad field', async () => {
      const cases: [unknown, Record<string, string[]>][] = [
        [{}, { ticket_type_id: ['Ticket type ID is required'], title: ['Title is required'] }],
        [
          { ticket_type_id: '1', title: 5 },
          { ticket_type_id: ['Ticket type ID must be an integer'], title: ['Title must be a string'] },
        ],
        [
          { ticket_type_id: 1.5, title: '   ' },
          { ticket_type_id: ['Ticket type ID must be an integer'], title: ['Title cannot be empty'] },
        ],
        [
          { ticket_type_id: 2147483648, title: 'x'.repeat(201) },
          {
            ticket_type_id: ['Ticket type ID must be at most 2147483647'],
            title: ['Title must be at most 200 characters'],
          },
        ],
        [
          { ticket_type_id: 0, title: 'ok', description: 'd'.repeat(5001) },
          {
            ticket_type_id: ['Ticket type ID must be at least 1'],
            description: ['Description must be at most 5000 characters'],
          },
        ],
        [
          { ticket_type_id: 1, title: 'ok', priority: 'urgent', assigned_to: 'bob', custom_fields: [] },
          {
            priority: ['Priority must be one of low, medium, high, critical'],
            assigned_to: ['Assignee must be an integer'],
            custom_fields: ['Custom fields must be a JSON object'],
          },
        ],
        [
          { ticket_type_id: 1, title: 'ok', tags: ['ok', '', 7, 't'.repeat(51)] },
          {
            'tags[1]': ['Tags cannot be empty'],
            'tags[2]': ['Each tag must be a string'],
            'tags[3]': ['Each tag must be at most 50 characters'],
          },
        ],
        [
          { ticket_type_id: 1, title: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
          { tags: ['Give at most 20 tags'] },
        ],
        [{ ticket_type_id: 1, title: 'ok', tags: 'vip' }, { tags: ['Tags must be an array of strings'] }],
      ];
      for (const [body, errors] of cases) {
        expectError(await call('POST', '/tickets?project_id=1', { body }), 422, 'Validation failed', errors);
      }
      expect(fakes.tickets.calls.CreateTicket).to.equal(undefined);
    });

    it('answers 422 on body for valid JSON that is not an object', async () => {
      for (const raw of ['[]', '5', 'null', '"title"']) {
        expectError(await call('POST', '/tickets?project_id=1', { raw }), 422, 'Validation failed', {
          body: ['Request body must be a JSON object'],
        });
      }
    });

    it('counts title characters as code points (200 emoji fit)', async () => {
      const response = await call('POST', '/tickets?project_id=1', {
        body: { ticket_type_id: 1, title: '🔥'.repeat(200) },
      });
      expect(response.status).to.equal(201);
      expect(fakes.tickets.lastRequest.CreateTicket.title).to.equal('🔥'.repeat(200));
    });

    it("passes the service's 422 (custom fields) through unchanged", async () => {
      fakes.tickets.override('CreateTicket', () => {
        throw AppError.validation({ 'custom_fields.severity': ['Severity is required'] });
      });
      expectError(
        await call('POST', '/tickets?project_id=1', { body: { ticket_type_id: 1, title: 'x' } }),
        422,
        'Validation failed',
        { 'custom_fields.severity': ['Severity is required'] },
      );
    });
  });

  describe('GET, PUT, DELETE /v1/tickets/{id}', () => {
    it('GET answers the ticket, asking for it in the project', async () => {
      const response = await call('GET', '/tickets/2147483647?project_id=1');
      expect(response.body).to.deep.equal({ ok: true, data: { ticket: { ...TICKET_JSON, id: 2147483647 } } });
      expect(fakes.tickets.lastRequest.GetTicket).to.deep.equal({ project_id: 1, id: 2147483647 });
    });

    it('answers 400 Invalid ticket id for anything but 1..2147483647 in digits', async () => {
      for (const id of ['abc', '0', '01', '1.5', '-1', '1e3', '2147483648', '99999999999', '%20']) {
        for (const method of ['GET', 'PUT', 'DELETE']) {
          expectError(
            await call(
              method,
              `/tickets/${id}?project_id=1`,
              method === 'PUT' ? { body: { title: 'x' } } : {},
            ),
            400,
            'Invalid ticket id',
          );
        }
        for (const suffix of ['status', 'merge', 'restore']) {
          const method = suffix === 'status' ? 'PATCH' : 'POST';
          expectError(
            await call(method, `/tickets/${id}/${suffix}?project_id=1`, { body: {} }),
            400,
            'Invalid ticket id',
          );
        }
      }
      expect(Object.keys(fakes.tickets.calls)).to.deep.equal([]);
    });

    it('passes 404 from the service through', async () => {
      fakes.tickets.override('GetTicket', () => {
        throw AppError.notFound('Ticket not found');
      });
      expectError(await call('GET', '/tickets/5?project_id=1'), 404, 'Ticket not found');
    });

    it('PUT sends only the given fields, with the contract wrappers', async () => {
      const response = await call('PUT', '/tickets/42?project_id=1', {
        body: {
          title: ' New title ',
          description: null,
          status: 'closed',
          priority: 'low',
          assigned_to: 0,
          custom_fields: { severity: 'low' },
          tags: [],
          version: 1,
          project_id: 2,
          created_by: 1,
        },
      });
      expect(response.body).to.deep.equal({ ok: true, data: { ticket: { ...TICKET_JSON, version: 2 } } });
      expect(fakes.tickets.lastRequest.UpdateTicket).to.deep.equal({
        project_id: 1,
        id: 42,
        title: 'New title',
        _title: 'title',
        description: {},
        status: 'closed',
        _status: 'status',
        priority: 'low',
        _priority: 'priority',
        assigned_to: {},
        custom_fields_json: '{"severity":"low"}',
        _custom_fields_json: 'custom_fields_json',
        version: 1,
        _version: 'version',
        tags: { values: [] },
        requester_id: null,
        cc: null,
      });
    });

    it('PUT: assigned_to n sets, null or omitted leaves; description text sets', async () => {
      await call('PUT', '/tickets/42?project_id=1', { body: { assigned_to: 11, description: 'd' } });
      expect(fakes.tickets.lastRequest.UpdateTicket).to.deep.equal({
        project_id: 1,
        id: 42,
        description: { value: 'd', _value: 'value' },
        assigned_to: { value: 11, _value: 'value' },
        tags: null,
        requester_id: null,
        cc: null,
      });
      await call('PUT', '/tickets/42?project_id=1', { body: { assigned_to: null, title: 't' } });
      expect(fakes.tickets.lastRequest.UpdateTicket).to.deep.equal({
        project_id: 1,
        id: 42,
        title: 't',
        _title: 'title',
        description: null,
        assigned_to: null,
        tags: null,
        requester_id: null,
        cc: null,
      });
    });

    it('PUT answers 422 for a body with nothing to change, and for bad fields', async () => {
      const nothing =
        'Give at least one field to change: title, description, status, priority, assigned_to, custom_fields, tags, ' +
        'requester_id, requester, cc or cc_emails';
      for (const body of [{}, { version: 3 }, { assigned_to: null }, { tags: null }, { project_id: 2 }]) {
        expectError(await call('PUT', '/tickets/42?project_id=1', { body }), 422, 'Validation failed', {
          body: [nothing],
        });
      }
      expectError(
        await call('PUT', '/tickets/42?project_id=1', {
          body: { title: '', version: 0, status: 5, assigned_to: -1 },
        }),
        422,
        'Validation failed',
        {
          title: ['Title cannot be empty'],
          status: ['Status must be a string'],
          assigned_to: ['Assignee must be at least 0'],
          version: ['Version must be at least 1'],
        },
      );
      expect(fakes.tickets.calls.UpdateTicket).to.equal(undefined);
    });

    it('PUT passes 409 and 422 from the service through', async () => {
      fakes.tickets.override('UpdateTicket', () => {
        throw AppError.conflict('Ticket was modified by another user');
      });
      expectError(
        await call('PUT', '/tickets/42?project_id=1', { body: { title: 'x', version: 1 } }),
        409,
        'Ticket was modified by another user',
      );
      fakes.tickets.override('UpdateTicket', () => {
        throw AppError.validation({ status: ['Status is not a status of the project'] });
      });
      expectError(
        await call('PUT', '/tickets/42?project_id=1', { body: { status: 'nope' } }),
        422,
        'Validation failed',
        { status: ['Status is not a status of the project'] },
      );
    });

    it('DELETE answers the service message and needs tickets:delete', async () => {
      expect((await call('DELETE', '/tickets/42?project_id=1')).body).to.deep.equal({
        ok: true,
        data: { message: 'Ticket deleted' },
      });
      expect(fakes.tickets.lastRequest.DeleteTicket).to.deep.equal({ project_id: 1, id: 42 });
      expectError(
        await call('DELETE', '/tickets/42?project_id=1', { key: READ_WRITE_KEY }),
        403,
        'Missing required scope: tickets:delete',
      );
    });
  });
});
