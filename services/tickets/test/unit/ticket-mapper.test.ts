import { expect } from 'chai';
import { ticketSchema } from '@tix/protos';
import {
  apiTicket,
  ticketJsonText,
  ticketsJsonBytes,
  toTicketJson,
} from '../../src/tickets/ticket-mapper.js';
import { PLATFORM, SUPPORT, ticketRow } from './support.js';

describe('ticket mapper', () => {
  it('presents a full row as the spec Ticket (labels, number, nulls)', () => {
    const row = ticketRow({
      id: 40,
      projectRefId: 12,
      description: 'It smokes',
      status: 'work_in_progress',
      priority: 'critical',
      assignedTo: 4,
      updatedBy: 6,
      customFields: { product: 'web', vip: true },
      tags: ['hardware'],
      resolutionType: null,
      requesterId: 31,
      cc: [32, 33],
      version: 2,
      updatedAt: new Date('2026-01-03T00:00:00.000Z'),
    });
    expect(toTicketJson(row, SUPPORT)).to.deep.equal({
      id: 40,
      project_id: 7,
      ticket_type_id: 3,
      project_ref_id: 12,
      ticket_number: 'SUP-12',
      title: 'Printer on fire',
      description: 'It smokes',
      status: 'work_in_progress',
      status_label: 'Work in progress',
      priority: 'critical',
      priority_label: 'Critical',
      assigned_to: 4,
      created_by: 5,
      updated_by: 6,
      custom_fields: { product: 'web', vip: true },
      source_type: 'api',
      merged_into_id: null,
      version: 2,
      created_at: '2026-01-02T03:04:05.678Z',
      updated_at: '2026-01-03T00:00:00.000Z',
      tags: ['hardware'],
      resolution_type: null,
      requester_id: 31,
      cc: [32, 33],
      closed_at: null,
    });
  });

  it('labels every priority', () => {
    const labels = (['low', 'medium', 'high', 'critical'] as const).map(
      (priority) => toTicketJson(ticketRow({ priority }), SUPPORT).priority_label,
    );
    expect(labels).to.deep.equal(['Low', 'Medium', 'High', 'Critical']);
  });

  it('shows merged_into only for merged tickets, and the resolution', () => {
    const json = toTicketJson(
      ticketRow({ status: 'closed', mergedIntoId: 3, resolutionType: 'duplicate' }),
      SUPPORT,
    );
    expect(json).to.deep.include({ merged_into_id: 3, merged_into: 3, resolution_type: 'duplicate' });
    expect(toTicketJson(ticketRow(), SUPPORT)).to.not.have.property('merged_into');
  });

  it('falls back to the slug when the workflow no longer has the status', () => {
    expect(toTicketJson(ticketRow({ status: 'open' }), PLATFORM)).to.deep.include({
      status: 'open',
      status_label: 'open',
      ticket_number: 'PLAT-12',
    });
  });

  it('shows null columns as null, custom fields as an object (never their JSON text)', () => {
    const json = toTicketJson(ticketRow({ customFields: { severity: 'high' } }), SUPPORT);
    for (const key of [
      'description',
      'assigned_to',
      'updated_by',
      'merged_into_id',
      'resolution_type',
      'requester_id',
      'closed_at',
    ])
      expect(json).to.have.property(key, null);
    expect(json.custom_fields).to.deep.equal({ severity: 'high' });
    expect(json).to.not.have.property('custom_fields_json');
    expect(json).to.not.have.property('merged_into');
  });

  it('answers one ticket as its JSON text with its id and version beside it (ApiTicket)', () => {
    const row = ticketRow({ id: 40, version: 3 });
    const answer = apiTicket(row, SUPPORT);
    expect([answer.id, answer.version]).to.deep.equal([40, 3]);
    expect(answer.json.toString('utf8')).to.equal(ticketJsonText(row, SUPPORT));
  });

  describe('as JSON text (tickets_json)', () => {
    const rows = [
      ticketRow(),
      ticketRow({
        id: 41,
        description: 'Quotes " and \\ and \u2028 and émoji 🔥',
        status: 'closed',
        priority: 'high',
        assignedTo: 4,
        updatedBy: 6,
        customFields: { '2': 'integer-like key first', product: 'web', nested: { a: [1, null] }, vip: true },
        tags: ['hardware', 'b'],
        mergedIntoId: 3,
        resolutionType: 'duplicate',
        closedAt: new Date('2026-01-04T05:06:07.089Z'),
      }),
      ticketRow({ status: 'gone', customFields: {}, tags: [] }),
    ];

    /** The API's JSON of `rows`, key order included, written out by hand. */
    const common = {
      project_id: 7,
      ticket_type_id: 3,
      project_ref_id: 12,
      ticket_number: 'SUP-12',
      title: 'Printer on fire',
    };
    const stamps = {
      version: 1,
      created_at: '2026-01-02T03:04:05.678Z',
      updated_at: '2026-01-02T03:04:05.678Z',
    };
    const expected = [
      {
        id: 1,
        ...common,
        description: null,
        status: 'open',
        status_label: 'Open',
        priority: 'medium',
        priority_label: 'Medium',
        assigned_to: null,
        created_by: 5,
        updated_by: null,
        custom_fields: {},
        source_type: 'api',
        merged_into_id: null,
        ...stamps,
        tags: [],
        resolution_type: null,
        requester_id: null,
        cc: [],
        closed_at: null,
      },
      {
        id: 41,
        ...common,
        description: 'Quotes " and \\ and \u2028 and émoji 🔥',
        status: 'closed',
        status_label: 'Closed',
        priority: 'high',
        priority_label: 'High',
        assigned_to: 4,
        created_by: 5,
        updated_by: 6,
        custom_fields: { '2': 'integer-like key first', product: 'web', nested: { a: [1, null] }, vip: true },
        source_type: 'api',
        merged_into_id: 3,
        ...stamps,
        tags: ['hardware', 'b'],
        resolution_type: 'duplicate',
        requester_id: null,
        cc: [],
        closed_at: '2026-01-04T05:06:07.089Z',
        merged_into: 3,
      },
      {
        id: 1,
        ...common,
        description: null,
        status: 'gone',
        status_label: 'gone',
        priority: 'medium',
        priority_label: 'Medium',
        assigned_to: null,
        created_by: 5,
        updated_by: null,
        custom_fields: {},
        source_type: 'api',
        merged_into_id: null,
        ...stamps,
        tags: [],
        resolution_type: null,
        requester_id: null,
        cc: [],
        closed_at: null,
      },
    ];

    it('is byte for byte the API JSON of the ticket, key order included', () => {
      rows.forEach((row, index) => {
        expect(ticketJsonText(row, SUPPORT)).to.equal(JSON.stringify(expected[index]));
      });
    });

    it("parses with the contract's ticket schema in strict mode (no field missing, none unknown)", () => {
      const strict = ticketSchema.strict();
      for (const row of [...rows, ticketRow({ status: 'closed', resolutionType: 'resolved', version: 9 })]) {
        const json: unknown = JSON.parse(ticketJsonText(row, SUPPORT));
        expect(strict.safeParse(json).error?.issues ?? []).to.deep.equal([]);
        expect(strict.parse(toTicketJson(row, SUPPORT))).to.deep.equal(json);
      }
    });

    it('fails the strict schema when a field is added or missing (the check above can fail)', () => {
      const json = toTicketJson(ticketRow(), SUPPORT);
      expect(ticketSchema.strict().safeParse({ ...json, internal: 1 }).success).to.equal(false);
      const { ticket_number: _number, ...withoutNumber } = json;
      expect(ticketSchema.strict().safeParse(withoutNumber).success).to.equal(false);
    });

    it('joins a lane or page into one UTF-8 JSON array, empty ones included', () => {
      const bytes = ticketsJsonBytes(rows, SUPPORT);
      expect(bytes.toString('utf8')).to.equal(JSON.stringify(expected));
      expect(ticketsJsonBytes([], SUPPORT).toString('utf8')).to.equal('[]');
    });
  });
});
