import { expect } from 'chai';
import {
  eventTypesOfChange,
  eventTypesOfCreate,
  eventTypesOfDelete,
  ticketChanges,
  ticketEvents,
} from '../../src/tickets/ticket-events.js';
import { toTicketJson } from '../../src/tickets/ticket-mapper.js';
import { stateOf } from '../../src/tickets/ticket-row.js';
import { SUPPORT, ticketRow } from './support.js';

describe('ticket events', () => {
  const before = stateOf(ticketRow());

  it('create and delete emit one event each', () => {
    expect(eventTypesOfCreate()).to.deep.equal(['ticket.created']);
    expect(eventTypesOfDelete()).to.deep.equal(['ticket.deleted']);
  });

  it('an update without status or assignee change is ticket.updated only', () => {
    expect(eventTypesOfChange(before, { ...before, title: 'New', priority: 'high' }, 'update')).to.deep.equal(
      ['ticket.updated'],
    );
  });

  it('adds ticket.status_changed and ticket.assigned when those change (unassigning included)', () => {
    expect(eventTypesOfChange(before, { ...before, status: 'closed' }, 'update')).to.deep.equal([
      'ticket.updated',
      'ticket.status_changed',
    ]);
    expect(eventTypesOfChange(before, { ...before, assignedTo: 4 }, 'update')).to.deep.equal([
      'ticket.updated',
      'ticket.assigned',
    ]);
    expect(
      eventTypesOfChange(
        { ...before, assignedTo: 4 },
        { ...before, assignedTo: null, status: 'waiting' },
        'update',
      ),
    ).to.deep.equal(['ticket.updated', 'ticket.status_changed', 'ticket.assigned']);
  });

  it('merge adds ticket.merged, restore adds ticket.restored', () => {
    expect(
      eventTypesOfChange(before, { ...before, status: 'closed', mergedIntoId: 9 }, 'merge'),
    ).to.deep.equal(['ticket.updated', 'ticket.status_changed', 'ticket.merged']);
    expect(eventTypesOfChange(before, before, 'restore')).to.deep.equal([
      'ticket.updated',
      'ticket.restored',
    ]);
  });

  it('builds one event per type, each carrying exactly the ticket as the API shows it', () => {
    const row = ticketRow({ version: 3, updatedAt: new Date('2026-02-03T04:05:06.007Z') });
    const actor = { kind: 'user', user_id: 4, api_key_id: null } as const;
    const changes = { status: { from: 'open', to: 'closed' } };
    const events = ticketEvents(['ticket.updated', 'ticket.status_changed'], row, SUPPORT, {
      actor,
      changes,
    });
    const data = toTicketJson(row, SUPPORT);
    expect(events.map((event) => event.type)).to.deep.equal(['ticket.updated', 'ticket.status_changed']);
    for (const event of events) {
      expect(event).to.deep.include({
        source: 'tickets',
        project_id: SUPPORT.id,
        occurred_at: '2026-02-03T04:05:06.007Z',
      });
      expect(event.data).to.deep.equal(data);
      expect(event.actor).to.deep.equal(actor);
      expect(event.changes).to.deep.equal(changes);
      expect(event).not.to.have.property('defaulted_fields');
      expect(event.id).to.match(/^[0-9a-f-]{36}$/);
    }
    expect(events[0]!.id).to.not.equal(events[1]!.id);
  });

  it('changes name the public fields that differ, and nothing for an unchanged ticket', () => {
    const row = ticketRow();
    const after = {
      ...row,
      status: 'closed',
      assignedTo: 7,
      customFields: { x: 1 },
      version: row.version + 1,
    };
    expect(ticketChanges(row, after, SUPPORT)).to.deep.equal({
      status: { from: row.status, to: 'closed' },
      assigned_to: { from: row.assignedTo, to: 7 },
      custom_fields: { from: row.customFields, to: { x: 1 } },
    });
    expect(
      ticketChanges(row, { ...row, version: row.version + 1, deletedAt: new Date() }, SUPPORT),
    ).to.deep.equal({});
  });
});
