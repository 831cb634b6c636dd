import { expect } from 'chai';
import type { TicketJson } from '@tix/protos';
import {
  assigneeChange,
  boardRequest,
  bulkUpdateRequest,
  createTicketRequest,
  descriptionChange,
  listTicketsRequest,
  moveTicketRequest,
  presentBoard,
  presentBulkResult,
  presentTicketPage,
  searchTicketsRequest,
  tagsChange,
  updateTicketRequest,
  presentTicketCursorPage,
} from '../../src/routes/v1/tickets.mapping.js';
import { RawJson, spliceJson } from '../../src/http/envelope.js';
import { checkStatusFilter } from '../../src/routes/v1/tickets.js';
import { AppError } from '@tix/kit';

/** A ticket as the API shows it (and the ticket service sends it). */
function ticketJson(id: number, status = 'open'): TicketJson {
  return {
    id,
    project_id: 1,
    ticket_type_id: 1,
    project_ref_id: id,
    ticket_number: `ACME-${id}`,
    title: `Ticket ${id}`,
    description: null,
    status,
    status_label: status,
    priority: 'medium',
    priority_label: 'Medium',
    assigned_to: null,
    created_by: 10,
    updated_by: null,
    custom_fields: {},
    source_type: 'api',
    requester_id: null,
    cc: [],
    merged_into_id: null,
    version: 1,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    tags: [],
    resolution_type: null,
    closed_at: null,
  };
}

/** Tickets as the service's `tickets_json`. */
function jsonOf(tickets: TicketJson[]): Buffer {
  return Buffer.from(JSON.stringify(tickets));
}

describe('ticket request mapping (HTTP JSON -> TicketService messages)', () => {
  it('assigned_to: omitted or null leaves it (no wrapper), 0 unassigns ({}), n assigns ({ value })', () => {
    expect(assigneeChange(undefined)).to.equal(undefined);
    expect(assigneeChange(null)).to.equal(undefined);
    expect(assigneeChange(0)).to.deep.equal({});
    expect(assigneeChange(7)).to.deep.equal({ value: 7 });
  });

  it('description: omitted leaves it, null clears ({}), text sets', () => {
    expect(descriptionChange(undefined)).to.equal(undefined);
    expect(descriptionChange(null)).to.deep.equal({});
    expect(descriptionChange('')).to.deep.equal({ value: '' });
    expect(descriptionChange('text')).to.deep.equal({ value: 'text' });
  });

  it('tags: omitted or null leave them, a list (even empty) replaces them', () => {
    expect(tagsChange(undefined)).to.equal(undefined);
    expect(tagsChange(null)).to.equal(undefined);
    expect(tagsChange([])).to.deep.equal({ values: [] });
    expect(tagsChange(['a'])).to.deep.equal({ values: ['a'] });
  });

  it('list: page selection, sort and filters', () => {
    expect(
      listTicketsRequest(3, { page: 2, per_page: 10, sort: '+id', status: 'open', tag: 'vip' }),
    ).to.deep.equal({
      project_id: 3,
      page: { page: 2, per_page: 10 },
      sort: '+id',
      status: 'open',
      priority: undefined,
      assignee: undefined,
      tag: 'vip',
      created_since: undefined,
      updated_since: undefined,
    });
    expect(
      listTicketsRequest(3, {
        page: 1,
        per_page: 50,
        sort: '-updated_at',
        assignee: 'none',
        updated_since: '2026-05-02T10:11:00.000Z',
        deleted: 'only',
      }),
    ).to.deep.include({ unassigned: true, updated_since: '2026-05-02T10:11:00.000Z', deleted_only: true });
  });

  it('search (q): the filters and sort, no page', () => {
    expect(
      searchTicketsRequest(3, { page: 2, per_page: 10, sort: '+id', priority: 'high', q: 'x', tag: 'vip' }),
    ).to.deep.equal({
      project_id: 3,
      q: 'x',
      sort: '+id',
      status: undefined,
      priority: 'high',
      assignee: undefined,
      tag: 'vip',
      created_since: undefined,
      updated_since: undefined,
    });
  });

  it('create: custom fields as JSON text, 0 or null assignee and null description absent, tags always a list', () => {
    expect(
      createTicketRequest(1, {
        ticket_type_id: 2,
        title: 't',
        description: null,
        assigned_to: 0,
        custom_fields: { severity: 'high', n: 1 },
      }),
    ).to.deep.equal({
      project_id: 1,
      ticket_type_id: 2,
      title: 't',
      description: undefined,
      priority: undefined,
      assigned_to: undefined,
      custom_fields_json: '{"severity":"high","n":1}',
      tags: [],
    });
    const full = createTicketRequest(1, { ticket_type_id: 2, title: 't', assigned_to: 5, tags: ['a'] });
    expect([full.assigned_to, full.custom_fields_json, full.tags]).to.deep.equal([5, '', ['a']]);
  });

  it('update: only given fields are present', () => {
    expect(updateTicketRequest(1, 9, { title: 'x' })).to.deep.equal({
      project_id: 1,
      id: 9,
      title: 'x',
      description: undefined,
      status: undefined,
      priority: undefined,
      assigned_to: undefined,
      custom_fields_json: undefined,
      version: undefined,
      tags: undefined,
    });
    expect(
      updateTicketRequest(1, 9, {
        description: null,
        assigned_to: 0,
        custom_fields: {},
        tags: [],
        version: 4,
      }),
    ).to.deep.include({
      description: {},
      assigned_to: {},
      custom_fields_json: '{}',
      tags: { values: [] },
      version: 4,
    });
  });

  it('move, bulk and board', () => {
    expect(
      moveTicketRequest(1, 9, { status: 'closed', after_id: null, resolution_type: null }),
    ).to.deep.equal({
      project_id: 1,
      id: 9,
      status: 'closed',
      after_id: undefined,
      before_id: undefined,
      resolution_type: undefined,
    });
    expect(bulkUpdateRequest(1, { ticket_ids: [1, 2], assigned_to: 3 })).to.deep.equal({
      project_id: 1,
      ticket_ids: [1, 2],
      status: undefined,
      priority: undefined,
      assigned_to: { value: 3 },
      tags: undefined,
    });
    // Bulk tags: null clears them (docs/decisions.md, Tickets > Writes): an empty list replaces them.
    expect(bulkUpdateRequest(1, { ticket_ids: [1, 2], assigned_to: 3, tags: null })).to.deep.equal({
      project_id: 1,
      ticket_ids: [1, 2],
      status: undefined,
      priority: undefined,
      assigned_to: { value: 3 },
      tags: { values: [] },
    });
    expect(boardRequest(1, { lane_limit: 100, assignee: 4 })).to.deep.equal({
      project_id: 1,
      priority: undefined,
      assignee: 4,
      lane_limit: 100,
    });
  });
});

/** The tickets of an answer, read back from the JSON spliced in. */
function presented(tickets: RawJson<TicketJson[]> | undefined): TicketJson[] {
  if (!(tickets instanceof RawJson)) throw new Error('expected the JSON text of the tickets');
  return JSON.parse(tickets.bytes.toString('utf8')) as TicketJson[];
}

describe('ticket response shaping', () => {
  it('board: lanes keyed by status in the order given (empty lanes too), counts per lane plus total', () => {
    const board = presentBoard({
      lanes: [
        {
          status: 'open',
          label: 'Open',
          is_closed: false,
          count: 7,
          tickets_json: jsonOf([ticketJson(2), ticketJson(1)]),
        },
        { status: 'work_in_progress', label: 'WIP', is_closed: false, count: 0, tickets_json: jsonOf([]) },
        {
          status: 'closed',
          label: 'Closed',
          is_closed: true,
          count: 1,
          tickets_json: jsonOf([ticketJson(3, 'closed')]),
        },
      ],
      total: 8,
    });
    expect(Object.keys(board.lanes)).to.deep.equal(['open', 'work_in_progress', 'closed']);
    expect(presented(board.lanes.open).map((shown) => shown.id)).to.deep.equal([2, 1]);
    expect(presented(board.lanes.work_in_progress)).to.deep.equal([]);
    expect(presented(board.lanes.closed)[0]).to.include({
      id: 3,
      ticket_number: 'ACME-3',
      description: null,
    });
    expect(board.counts).to.deep.equal({ open: 7, work_in_progress: 0, closed: 1, total: 8 });
    expect(Object.keys(board.counts)).to.deep.equal(['open', 'work_in_progress', 'closed', 'total']);
  });

  it('list: pagination copied; a page without it is a contract violation (500)', () => {
    const paged = presentTicketPage({
      pagination: { total: 51, page: 2, per_page: 50, total_pages: 2 },
      tickets_json: jsonOf([ticketJson(1)]),
    });
    expect(paged.pagination).to.deep.equal({ total: 51, page: 2, per_page: 50, total_pages: 2 });
    expect(presented(paged.tickets)[0]).to.deep.include({ id: 1, custom_fields: {} });
    expect(() => presentTicketPage({ pagination: null, tickets_json: jsonOf([]) }))
      .to.throw(AppError)
      .with.property('kind', 'internal');
  });

  describe('tickets sent as JSON text (tickets_json), spliced into the answer', () => {
    const lanes = () => {
      const lane = (status: string, tickets: TicketJson[], count: number) => ({
        status,
        label: status,
        is_closed: status === 'closed',
        count,
        tickets_json: jsonOf(tickets),
      });
      return {
        lanes: [
          lane('open', [ticketJson(2), ticketJson(1)], 7),
          lane('work_in_progress', [], 0),
          lane('closed', [ticketJson(3, 'closed')], 1),
        ],
        total: 8,
      };
    };

    it("board: byte for byte the answer with each lane's tickets as the API shows them", () => {
      const spliced = presentBoard(lanes());
      expect(spliced.lanes.open).to.be.instanceOf(RawJson);
      const expected = {
        ok: true,
        data: {
          lanes: {
            open: [ticketJson(2), ticketJson(1)],
            work_in_progress: [],
            closed: [ticketJson(3, 'closed')],
          },
          counts: { open: 7, work_in_progress: 0, closed: 1, total: 8 },
        },
      };
      expect(spliceJson({ ok: true, data: spliced }).toString('utf8')).to.equal(JSON.stringify(expected));
    });

    it('list and cursor page: byte for byte the answer with the tickets as the API shows them', () => {
      const tickets = [ticketJson(1), ticketJson(2, 'closed')];
      const json = jsonOf(tickets);
      const pagination = { total: 2, page: 1, per_page: 50, total_pages: 1 };
      const spliced = presentTicketPage({ tickets_json: json, pagination });
      expect(spliceJson(spliced).toString()).to.equal(JSON.stringify({ tickets, pagination }));
      const cursor = presentTicketCursorPage({ tickets_json: json, pagination: null, next_cursor: 'c' });
      expect(spliceJson(cursor).toString()).to.equal(JSON.stringify({ tickets, next_cursor: 'c' }));
    });

    it('spliceJson is JSON.stringify for values without RawJson', () => {
      for (const value of [
        { a: 1, b: undefined, c: null, d: [1, undefined, 'x\u2028"'], e: { f: new Date(0), g: () => 1 } },
        [],
        {},
        'é',
        7,
        null,
      ])
        expect(spliceJson(value).toString('utf8')).to.equal(JSON.stringify(value));
      expect(spliceJson({ a: [new RawJson(Buffer.from('[{"x":"é"}]'))], b: 2 }).toString()).to.equal(
        '{"a":[[{"x":"é"}]],"b":2}',
      );
    });
  });

  it('bulk result', () => {
    const result = presentBulkResult({
      success_count: 1,
      failed_count: 1,
      failed_ids: [5],
      tickets_json: jsonOf([ticketJson(4)]),
    });
    expect(result).to.deep.include({ success_count: 1, failed_count: 1, failed_ids: [5] });
    expect(presented(result.tickets).map((shown) => shown.id)).to.deep.equal([4]);
  });

  it('list status filter must be a status of the project (400), checked without a call', () => {
    const project = {
      id: 1,
      name: 'A',
      slug: 'a',
      prefix: 'A',
      description: '',
      statuses: [
        { slug: 'open', label: 'Open', is_closed: false, position: 0 },
        { slug: 'done', label: 'Done', is_closed: true, position: 1 },
      ],
    };
    expect(() => checkStatusFilter(project, undefined)).not.to.throw();
    expect(() => checkStatusFilter(project, 'done')).not.to.throw();
    try {
      checkStatusFilter(project, 'closed');
      expect.fail('expected a 400');
    } catch (error) {
      const appError = error as AppError;
      expect([appError.httpStatus, appError.message, appError.validationErrors]).to.deep.equal([
        400,
        'Invalid status',
        { status: ['status must be a status of the project: open, done'] },
      ]);
    }
  });
});
