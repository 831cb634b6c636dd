import { expect } from 'chai';
import { z } from 'zod';
import { TICKET_SORT_FIELDS } from '@tix/protos';
import { parseBody, parseParams, parseQuery } from '../../src/http/validate.js';
import * as boardSchemas from '../../src/routes/v1/board.schemas.js';
import * as actionSchemas from '../../src/routes/v1/ticket-actions.schemas.js';
import * as schemas from '../../src/routes/v1/tickets.schemas.js';
import { boardQuery } from '../../src/routes/v1/board.schemas.js';
import {
  bulkUpdateBody,
  mergeTicketBody,
  moveTicketBody,
} from '../../src/routes/v1/ticket-actions.schemas.js';
import {
  createTicketBody,
  listTicketsQuery,
  ticketIdParams,
  updateTicketBody,
} from '../../src/routes/v1/tickets.schemas.js';
import { bodyErrors, queryErrors, thrownAppError as failure } from '../support/refusals.js';

const SORT_MESSAGE =
  'sort must be one of id, title, status, priority, created_at, updated_at, assigned_to, optionally prefixed with + (ascending) or - (descending)';

describe('ticket route schemas', () => {
  describe('path id', () => {
    it('accepts 1..2147483647 written in plain digits', () => {
      for (const [raw, id] of [
        ['1', 1],
        ['42', 42],
        ['2147483647', 2147483647],
      ] as const) {
        expect(parseParams(ticketIdParams, { id: raw })).to.deep.equal({ id });
      }
    });

    it('refuses everything else with 400 Invalid ticket id', () => {
      for (const raw of [
        '0',
        '00',
        '01',
        '-1',
        '1.0',
        '1.5',
        '1e3',
        'abc',
        '',
        ' 1',
        '2147483648',
        '99999999999',
      ]) {
        const error = failure(() => parseParams(ticketIdParams, { id: raw }));
        expect([error.httpStatus, error.message], raw).to.deep.equal([400, 'Invalid ticket id']);
      }
    });
  });

  describe('GET /tickets query', () => {
    it('fills the defaults', () => {
      expect(parseQuery(listTicketsQuery, {})).to.deep.equal({ page: 1, per_page: 50, sort: '-created_at' });
    });

    it("normalises sort: '+', ' ' (a decoded '+') and bare mean ascending", () => {
      for (const field of TICKET_SORT_FIELDS) {
        for (const prefix of ['+', ' ', '']) {
          expect(parseQuery(listTicketsQuery, { sort: `${prefix}${field}` }).sort).to.equal(`+${field}`);
        }
        expect(parseQuery(listTicketsQuery, { sort: `-${field}` }).sort).to.equal(`-${field}`);
      }
    });

    it('refuses bad page, per_page, sort, priority, assignee, q and tag (400 per parameter)', () => {
      const ASSIGNEE_MESSAGE = 'assignee must be a user id (a positive integer) or none';
      const cases: [Record<string, unknown>, Record<string, string[]>][] = [
        [{ page: '0' }, { page: ['page must be a positive integer'] }],
        [{ page: '-1' }, { page: ['page must be a positive integer'] }],
        [{ page: '1.5' }, { page: ['page must be a positive integer'] }],
        [{ page: '99999999999' }, { page: ['page must be a positive integer'] }],
        [{ per_page: '0' }, { per_page: ['per_page must be an integer from 1 to 100'] }],
        [{ per_page: '101' }, { per_page: ['per_page must be an integer from 1 to 100'] }],
        [{ per_page: 'ten' }, { per_page: ['per_page must be an integer from 1 to 100'] }],
        [{ per_page: ['1', '2'] }, { per_page: ['per_page must be an integer from 1 to 100'] }],
        [{ sort: 'name' }, { sort: [SORT_MESSAGE] }],
        [{ sort: '--id' }, { sort: [SORT_MESSAGE] }],
        [{ sort: '+-id' }, { sort: [SORT_MESSAGE] }],
        [{ sort: 'id ' }, { sort: [SORT_MESSAGE] }],
        [{ sort: '' }, { sort: [SORT_MESSAGE] }],
        [{ sort: 'ID' }, { sort: [SORT_MESSAGE] }],
        [{ priority: 'urgent' }, { priority: ['priority must be one of low, medium, high, critical'] }],
        [{ priority: 'HIGH' }, { priority: ['priority must be one of low, medium, high, critical'] }],
        [{ assignee: 'me' }, { assignee: [ASSIGNEE_MESSAGE] }],
        [{ assignee: '0' }, { assignee: [ASSIGNEE_MESSAGE] }],
        [{ assignee: '2147483648' }, { assignee: [ASSIGNEE_MESSAGE] }],
        [{ assignee: 'None' }, { assignee: [ASSIGNEE_MESSAGE] }],
        [
          { updated_since: 'yesterday' },
          { updated_since: ['updated_since must be an ISO 8601 date-time such as 2026-05-02T10:11:00Z'] },
        ],
        [{ deleted: 'all' }, { deleted: ['deleted must be only'] }],
        [{ q: '' }, { q: ['q must be 1 to 200 characters'] }],
        [{ q: '   ' }, { q: ['q must be 1 to 200 characters'] }],
        [{ q: 'x'.repeat(201) }, { q: ['q must be 1 to 200 characters'] }],
        [{ tag: 't'.repeat(51) }, { tag: ['tag must be 1 to 50 characters'] }],
        [{ status: '' }, { status: ['status must be a status slug of the project'] }],
        [{ status: ['open', 'closed'] }, { status: ['status must be a status slug of the project'] }],
      ];
      for (const [query, errors] of cases) {
        expect(queryErrors(listTicketsQuery, query), JSON.stringify(query)).to.deep.equal(errors);
      }
    });

    it('keeps the filters, trims q and lower-cases tag, and drops unknown parameters', () => {
      expect(
        parseQuery(listTicketsQuery, {
          page: '3',
          per_page: '100',
          status: 'open',
          priority: 'critical',
          assignee: '7',
          q: ' printer ',
          tag: ' VIP ',
          project_id: '1',
          other: 'x',
        }),
      ).to.deep.equal({
        page: 3,
        per_page: 100,
        sort: '-created_at',
        status: 'open',
        priority: 'critical',
        assignee: 7,
        q: 'printer',
        tag: 'vip',
      });
      expect(parseQuery(listTicketsQuery, { q: 'x'.repeat(200), per_page: '1' })).to.include({ per_page: 1 });
    });
  });

  describe('POST /tickets body', () => {
    const valid = { ticket_type_id: 1, title: 'Printer on fire' };

    it('accepts the minimum and trims the title', () => {
      expect(parseBody(createTicketBody, { ...valid, title: '  x  ' })).to.deep.equal({
        ticket_type_id: 1,
        title: 'x',
      });
    });

    it('refuses wrong types, empty and overlong text, bad enums and ids (422 per field)', () => {
      const cases: [unknown, Record<string, string[]>][] = [
        [{}, { ticket_type_id: ['Ticket type ID is required'], title: ['Title is required'] }],
        [{ ...valid, ticket_type_id: '1' }, { ticket_type_id: ['Ticket type ID must be an integer'] }],
        [{ ...valid, ticket_type_id: null }, { ticket_type_id: ['Ticket type ID must be an integer'] }],
        [{ ...valid, ticket_type_id: -3 }, { ticket_type_id: ['Ticket type ID must be at least 1'] }],
        [{ ...valid, title: 7 }, { title: ['Title must be a string'] }],
        [{ ...valid, title: null }, { title: ['Title must be a string'] }],
        [{ ...valid, title: '' }, { title: ['Title cannot be empty'] }],
        [{ ...valid, title: ' \t\n ' }, { title: ['Title cannot be empty'] }],
        [{ ...valid, title: 'x'.repeat(201) }, { title: ['Title must be at most 200 characters'] }],
        [{ ...valid, title: '🔥'.repeat(201) }, { title: ['Title must be at most 200 characters'] }],
        [
          { ...valid, description: 'd'.repeat(5001) },
          { description: ['Description must be at most 5000 characters'] },
        ],
        [{ ...valid, description: 5 }, { description: ['Description must be a string'] }],
        [
          { ...valid, priority: 'urgent' },
          { priority: ['Priority must be one of low, medium, high, critical'] },
        ],
        [{ ...valid, priority: null }, { priority: ['Priority must be one of low, medium, high, critical'] }],
        [{ ...valid, assigned_to: '11' }, { assigned_to: ['Assignee must be an integer'] }],
        [{ ...valid, assigned_to: 1.5 }, { assigned_to: ['Assignee must be an integer'] }],
        [{ ...valid, assigned_to: -1 }, { assigned_to: ['Assignee must be at least 0'] }],
        [{ ...valid, custom_fields: [] }, { custom_fields: ['Custom fields must be a JSON object'] }],
        [{ ...valid, custom_fields: 'x' }, { custom_fields: ['Custom fields must be a JSON object'] }],
        [{ ...valid, custom_fields: null }, { custom_fields: ['Custom fields must be a JSON object'] }],
        [{ ...valid, project_id: 'x' }, { project_id: ['must be an integer'] }],
      ];
      for (const [body, errors] of cases) {
        expect(bodyErrors(createTicketBody, body), JSON.stringify(body).slice(0, 80)).to.deep.equal(errors);
      }
    });

    it('accepts 200 characters (also as emoji), 5000 of description, and null for description and assignee', () => {
      expect(parseBody(createTicketBody, { ...valid, title: '🔥'.repeat(200) }).title).to.equal(
        '🔥'.repeat(200),
      );
      expect(
        parseBody(createTicketBody, { ...valid, description: 'd'.repeat(5000), assigned_to: null }),
      ).to.deep.include({ description: 'd'.repeat(5000), assigned_to: null });
      expect(parseBody(createTicketBody, { ...valid, description: null }).description).to.equal(null);
    });

    it('applies the tag rules: trimmed, lower-cased, unique, 1..50 characters, at most 20', () => {
      expect(parseBody(createTicketBody, { ...valid, tags: [' VIP', 'vip ', 'Billing'] }).tags).to.deep.equal(
        ['vip', 'billing'],
      );
      expect(parseBody(createTicketBody, { ...valid, tags: Array(20).fill('a') }).tags).to.deep.equal(['a']);
      const cases: [unknown, Record<string, string[]>][] = [
        ['vip', { tags: ['Tags must be an array of strings'] }],
        [[1], { 'tags[0]': ['Each tag must be a string'] }],
        [['ok', '  '], { 'tags[1]': ['Tags cannot be empty'] }],
        [['t'.repeat(51)], { 'tags[0]': ['Each tag must be at most 50 characters'] }],
        [Array.from({ length: 21 }, (_, i) => `t${i}`), { tags: ['Give at most 20 tags'] }],
      ];
      for (const [tags, errors] of cases) {
        expect(bodyErrors(createTicketBody, { ...valid, tags })).to.deep.equal(errors);
      }
      expect(parseBody(createTicketBody, { ...valid, tags: ['t'.repeat(50)] }).tags).to.deep.equal([
        't'.repeat(50),
      ]);
    });

    it('refuses a body that is not an object on `body`, and drops unknown fields', () => {
      for (const body of [null, [], [valid], 5, 'x', true]) {
        expect(bodyErrors(createTicketBody, body)).to.deep.equal({
          body: ['Request body must be a JSON object'],
        });
      }
      expect(parseBody(createTicketBody, { ...valid, created_by: 9, id: 3, version: 7 })).to.deep.equal(
        valid,
      );
    });
  });

  describe('PUT /tickets/{id} body', () => {
    const nothing =
      'Give at least one field to change: title, description, status, priority, assigned_to, custom_fields, tags, ' +
      'requester_id, requester, cc or cc_emails';

    it('needs at least one field that changes something', () => {
      for (const body of [
        {},
        { version: 2 },
        { assigned_to: null },
        { tags: null },
        { id: 5, project_id: 1 },
      ]) {
        expect(bodyErrors(updateTicketBody, body), JSON.stringify(body)).to.deep.equal({ body: [nothing] });
      }
      for (const body of [
        { title: 'x' },
        { description: null },
        { status: 'closed' },
        { priority: 'low' },
        { assigned_to: 0 },
        { custom_fields: {} },
        { tags: [] },
      ]) {
        expect(() => parseBody(updateTicketBody, body), JSON.stringify(body)).not.to.throw();
      }
    });

    it('refuses bad fields', () => {
      const cases: [unknown, Record<string, string[]>][] = [
        [{ title: '   ' }, { title: ['Title cannot be empty'] }],
        [{ title: 'x'.repeat(201) }, { title: ['Title must be at most 200 characters'] }],
        [{ title: null }, { title: ['Title must be a string'] }],
        [{ status: '' }, { status: ['Status cannot be empty'] }],
        [{ status: 3 }, { status: ['Status must be a string'] }],
        [{ title: 'x', version: 0 }, { version: ['Version must be at least 1'] }],
        [{ title: 'x', version: '2' }, { version: ['Version must be an integer'] }],
        [{ title: 'x', version: 2.5 }, { version: ['Version must be an integer'] }],
        [{ assigned_to: 'nobody' }, { assigned_to: ['Assignee must be an integer'] }],
      ];
      for (const [body, errors] of cases) {
        expect(bodyErrors(updateTicketBody, body), JSON.stringify(body)).to.deep.include(errors);
      }
    });
  });

  describe('PATCH /tickets/{id}/status body', () => {
    it('needs a status; placement ids and resolution are optional and nullable', () => {
      expect(bodyErrors(moveTicketBody, {})).to.deep.equal({ status: ['Status is required'] });
      expect(
        parseBody(moveTicketBody, { status: 'closed', after_id: null, before_id: 3, resolution_type: null }),
      ).to.deep.equal({ status: 'closed', after_id: null, before_id: 3, resolution_type: null });
      expect(bodyErrors(moveTicketBody, { status: 'closed', resolution_type: 'fixed' })).to.deep.equal({
        resolution_type: ['Resolution type must be one of resolved, wont_fix, duplicate'],
      });
      expect(bodyErrors(moveTicketBody, { status: 'open', after_id: '4', before_id: 0 })).to.deep.equal({
        after_id: ['After ID must be an integer'],
        before_id: ['Before ID must be at least 1'],
      });
    });
  });

  describe('POST /tickets/bulk-update body', () => {
    it('takes 1..100 ids (duplicates collapse) and the four default statuses', () => {
      expect(parseBody(bulkUpdateBody, { ticket_ids: [3, 1, 3], status: 'waiting' })).to.deep.equal({
        ticket_ids: [3, 1],
        status: 'waiting',
      });
      const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
      expect(parseBody(bulkUpdateBody, { ticket_ids: hundred, priority: 'low' }).ticket_ids).to.have.length(
        100,
      );
      const cases: [unknown, Record<string, string[]>][] = [
        [{ status: 'open' }, { ticket_ids: ['Ticket IDs are required'] }],
        [{ ticket_ids: [], status: 'open' }, { ticket_ids: ['Give at least 1 ticket ID'] }],
        [{ ticket_ids: [...hundred, 101], status: 'open' }, { ticket_ids: ['Give at most 100 ticket IDs'] }],
        [{ ticket_ids: 5, status: 'open' }, { ticket_ids: ['Ticket IDs must be an array of integers'] }],
        [{ ticket_ids: [1.5], status: 'open' }, { 'ticket_ids[0]': ['Ticket ID must be an integer'] }],
        [
          { ticket_ids: [1], status: 'done' },
          { status: ['Status must be one of open, work_in_progress, waiting, closed'] },
        ],
        [{ ticket_ids: [1], assigned_to: 'x' }, { assigned_to: ['Assignee must be an integer'] }],
        [{ ticket_ids: [1], tags: [''] }, { 'tags[0]': ['Tags cannot be empty'] }],
        [
          { ticket_ids: [1] },
          { body: ['Give at least one field to change: status, priority, assigned_to or tags'] },
        ],
      ];
      for (const [body, errors] of cases) {
        expect(bodyErrors(bulkUpdateBody, body), JSON.stringify(body).slice(0, 60)).to.deep.include(errors);
      }
    });

    it('takes tags: null as a change (it clears the tags); assigned_to: null alone is still nothing', () => {
      expect(parseBody(bulkUpdateBody, { ticket_ids: [1], tags: null })).to.deep.equal({
        ticket_ids: [1],
        tags: null,
      });
      expect(bodyErrors(bulkUpdateBody, { ticket_ids: [1], assigned_to: null })).to.deep.equal({
        body: ['Give at least one field to change: status, priority, assigned_to or tags'],
      });
    });
  });

  describe('merge body and board query', () => {
    it('merge needs an integer target_id', () => {
      expect(parseBody(mergeTicketBody, { target_id: 4 })).to.deep.equal({ target_id: 4 });
      expect(bodyErrors(mergeTicketBody, { target_id: '4' })).to.deep.equal({
        target_id: ['Target ID must be an integer'],
      });
    });

    it('board: lane_limit 1..500 (the service applies the default), priority and assignee filters', () => {
      expect(parseQuery(boardQuery, {})).to.deep.equal({});
      expect(parseQuery(boardQuery, { lane_limit: '500', priority: 'low', assignee: '3' })).to.deep.equal({
        lane_limit: 500,
        priority: 'low',
        assignee: 3,
      });
      for (const lane_limit of ['0', '501', 'x']) {
        expect(queryErrors(boardQuery, { lane_limit })).to.deep.equal({
          lane_limit: ['lane_limit must be an integer from 1 to 500'],
        });
      }
    });
  });

  it('every exported schema converts to JSON Schema (the OpenAPI document is generated from them)', () => {
    const exported = Object.entries({ ...schemas, ...actionSchemas, ...boardSchemas }).filter(
      ([, value]) => value instanceof z.ZodType,
    );
    expect(exported.length).to.be.greaterThan(14);
    for (const [name, schema] of exported) {
      for (const io of ['input', 'output'] as const) {
        expect(
          () => z.toJSONSchema(schema as z.ZodType, { io, unrepresentable: 'any' }),
          `${name} ${io}`,
        ).not.to.throw();
      }
    }
    type Property = { description?: string; maxLength?: number; anyOf?: Property[] };
    const create = z.toJSONSchema(createTicketBody, { io: 'input' }) as {
      properties: Record<string, Property>;
      required: string[];
    };
    expect(create.required).to.deep.equal(['ticket_type_id', 'title']);
    expect(create.properties.title).to.include({ maxLength: 200 });
    // Nullable fields carry their description on the non-null member.
    for (const [field, property] of Object.entries(create.properties)) {
      expect(property.description ?? property.anyOf?.[0]?.description, field).to.be.a('string');
    }
  });
});
