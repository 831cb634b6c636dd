/** What ticket and comment events mean for a ticket's SLA history (src/ticket-events.ts). */
import { expect } from 'chai';
import { computeClocks } from '@tix/business-time';
import {
  changedFacts,
  commentFact,
  engineHistory,
  factsOf,
  insertInOrder,
  type StoredEvent,
} from '../../src/ticket-events.js';

const ticket = {
  id: 5,
  version: 1,
  status: 'open',
  priority: 'high',
  ticket_type_id: 3,
  requester_id: 8,
  tags: ['vip', 'billing'],
  custom_fields: { plan: 'gold' },
  created_at: '2026-12-01T10:00:00.000Z',
};

describe('sla: ticket and comment events as history', () => {
  it('reads the facts a policy filter looks at, ids as text and tags sorted', () => {
    expect(factsOf(ticket)).to.deep.equal({
      priority: 'high',
      ticket_type: '3',
      organization: null,
      requester: '8',
      tags: ['billing', 'vip'],
      custom_fields: { plan: 'gold' },
    });
  });

  it('makes a public staff comment a reply, a customer comment a message, an internal note nothing', () => {
    const at = '2026-12-01T10:05:00.000Z';
    expect(
      commentFact({ id: 1, ticket_id: 5, is_internal: false, author_type: 'staff', created_at: at }),
    ).to.deep.equal({
      ref: 'comment:1',
      type: 'staff_public_reply',
      at,
    });
    expect(
      commentFact({ id: 2, ticket_id: 5, is_internal: false, author_type: 'customer', created_at: at })?.type,
    ).to.equal('customer_message');
    expect(
      commentFact({ id: 3, ticket_id: 5, is_internal: true, author_type: 'staff', created_at: at }),
    ).to.equal(null);
  });

  it('names only the facts that changed', () => {
    const before = factsOf(ticket);
    expect(changedFacts(before, factsOf({ ...ticket, tags: ['vip', 'billing'] }))).to.equal(null);
    expect(changedFacts(before, factsOf({ ...ticket, priority: 'urgent', tags: ['vip'] }))).to.deep.equal({
      priority: 'urgent',
      tags: ['vip'],
    });
  });

  it('inserts an entry after everything at or before its instant', () => {
    const a: StoredEvent = { ref: 'a', type: 'created', at: '2026-12-01T10:00:00.000Z' };
    const b: StoredEvent = { ref: 'b', type: 'customer_message', at: '2026-12-01T10:10:00.000Z' };
    const c: StoredEvent = { ref: 'c', type: 'staff_public_reply', at: '2026-12-01T10:05:00.000Z' };
    const d: StoredEvent = { ref: 'd', type: 'staff_public_reply', at: '2026-12-01T10:10:00.000Z' };
    const refs = (history: StoredEvent[]) => history.map((entry) => entry.ref);
    expect(refs(insertInOrder(insertInOrder(insertInOrder([a], b), c), d))).to.deep.equal([
      'a',
      'c',
      'b',
      'd',
    ]);
  });

  it('starts the engine history with the creation and moves earlier entries to it; none without one', () => {
    const reply: StoredEvent = {
      ref: 'comment:1',
      type: 'staff_public_reply',
      at: '2026-12-01T09:59:59.000Z',
    };
    expect(engineHistory([reply])).to.equal(null);
    const created: StoredEvent = {
      ref: 'ticket:created',
      type: 'created',
      at: ticket.created_at,
      facts: factsOf(ticket),
      status: 'open',
      closed: false,
    };
    const history = engineHistory([reply, created])!;
    expect(history.map((event) => [event.type, event.at.toISOString()])).to.deep.equal([
      ['created', ticket.created_at],
      ['staff_public_reply', ticket.created_at],
    ]);
    const result = computeClocks({
      policies: [
        {
          id: 'p',
          name: 'p',
          calendar_id: null,
          filter: {},
          targets: {
            first_response: { minutes: 30, mode: 'calendar', pause_statuses: [], warn_before_minutes: null },
          },
        },
      ],
      calendars: {},
      history,
      now: new Date('2026-12-01T11:00:00.000Z'),
    });
    expect(result.ok && result.value.targets[0]).to.include({ state: 'met', elapsed_minutes: 0 });
  });
});
