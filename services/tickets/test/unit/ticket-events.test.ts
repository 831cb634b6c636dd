import { expect } from 'chai';
import { presentTicket } from '@tix/protos';
import {
  eventTypesOfChange,
  eventTypesOfCreate,
  eventTypesOfDelete,
  ticketEvents,
} from '../../src/tickets/ticket-events.js';
import { toTicketMessage } from '../../src/tickets/ticket-mapper.js';
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
    const events = ticketEvents(['ticket.updated', 'ticket.status_changed'], row, SUPPORT);
    const data = presentTicket(toTicketMessage(row, SUPPORT));
    expect(events.map((event) => event.type)).to.deep.equal(['ticket.updated', 'ticket.status_changed']);
    for (const event of events) {
      expect(event).to.deep.include({
        source: 'tickets',
        project_id: SUPPORT.id,
        occurred_at: '2026-02-03T04:05:06.007Z',
      });
      expect(event.data).to.deep.equal(data);
      expect(event.id).to.match(/^[0-9a-f-]{36}$/);
    }
    expect(events[0]!.id).to.not.equal(events[1]!.id);
  });
});
