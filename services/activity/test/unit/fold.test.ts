import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '@tix/protos';
import { EXCERPT_LENGTH, excerptOf, foldEvent, foldedTicketType } from '../../src/log/fold.js';

const ticket = { id: 42, project_id: 1, ticket_number: 'SUP-42', title: 'Login loop', version: 7 };
const actor = { kind: 'user' as const, user_id: 5, api_key_id: null };

function event(type: string, data: Record<string, unknown>, extra: Partial<DomainEvent> = {}): DomainEvent {
  return {
    id: randomUUID(),
    type: type as DomainEvent['type'],
    occurred_at: '2026-05-02T10:11:00.123Z',
    source: 'tickets',
    project_id: 1,
    actor,
    changes: {},
    data,
    ...extra,
  };
}

describe('folding events into the logs', () => {
  it('gives every event of one ticket write the same fold key, and the write its most specific type', () => {
    const writeTypes = ['ticket.updated', 'ticket.status_changed', 'ticket.merged'] as DomainEvent['type'][];
    const changes = { status: { from: 'open', to: 'closed' }, merged_into_id: { from: null, to: 12 } };
    const folded = writeTypes.map((type) =>
      foldEvent(event(type, ticket, { changes, write_types: writeTypes })),
    );
    expect(new Set(folded.map((record) => record.entry.foldKey))).to.deep.equal(new Set(['ticket:42:7']));
    expect(folded.map((record) => record.entry.type)).to.deep.equal([
      'ticket.merged',
      'ticket.merged',
      'ticket.merged',
    ]);
    expect(folded[1]?.entry.changes).to.deep.equal(changes);
    // Each event is its own stream row (the stream is not folded).
    expect(new Set(folded.map((record) => record.stream.eventId)).size).to.equal(3);
  });

  it('ranks the folded type: created, deleted, merged, restored, else updated', () => {
    expect(foldedTicketType(['ticket.updated', 'ticket.assigned'])).to.equal('ticket.updated');
    expect(foldedTicketType(['ticket.status_changed'])).to.equal('ticket.updated');
    expect(foldedTicketType(['ticket.updated', 'ticket.restored'])).to.equal('ticket.restored');
    expect(foldedTicketType(['ticket.deleted'])).to.equal('ticket.deleted');
    expect(foldedTicketType(['ticket.created'])).to.equal('ticket.created');
  });

  it('falls back to the event alone when it predates write_types, and to a system actor before v1.1', () => {
    const old = event('ticket.assigned', ticket);
    delete old.actor;
    const record = foldEvent(old);
    expect(record.entry.type).to.equal('ticket.updated');
    expect(record.entry.actor).to.deep.equal({ kind: 'system', user_id: null, api_key_id: null });
  });

  it('keeps the ticket number and title from ticket events, for summaries', () => {
    expect(foldEvent(event('ticket.created', ticket)).subject).to.deep.equal({
      id: 42,
      projectId: 1,
      ticketNumber: 'SUP-42',
      title: 'Login loop',
      version: 7,
    });
    expect(foldEvent(event('comment.created', { id: 3, ticket_id: 42, content: 'x' })).subject).to.equal(
      null,
    );
  });

  it('makes each comment and attachment event an entry of its own about its ticket', () => {
    const comment = foldEvent(
      event('comment.created', {
        id: 3,
        ticket_id: 42,
        content: 'Restarted  the\nprinter',
        is_internal: false,
      }),
    );
    expect(comment.entry.foldKey).to.match(/^event:/);
    expect(comment.entry.ticketId).to.equal(42);
    expect(comment.entry.comment).to.deep.equal({
      id: 3,
      isInternal: false,
      excerpt: 'Restarted the printer',
    });
    const attachment = foldEvent(
      event('attachment.created', { id: 8, ticket_id: 42, original_filename: 'log.txt' }),
    );
    expect(attachment.entry.filename).to.equal('log.txt');
    expect(attachment.entry.comment).to.equal(null);
  });

  it('streams the webhook delivery body, without the v1.1 envelope', () => {
    const record = foldEvent(event('ticket.updated', ticket, { changes: { title: { from: 'a', to: 'b' } } }));
    expect(JSON.parse(record.stream.body)).to.deep.equal({
      event: 'ticket.updated',
      timestamp: 1777716660,
      data: ticket,
    });
  });

  it('cuts excerpts at 200 characters, counting code points', () => {
    expect(excerptOf('short')).to.equal('short');
    const long = excerptOf('🙂'.repeat(300));
    expect(Array.from(long)).to.have.length(EXCERPT_LENGTH);
    expect(long.endsWith('…')).to.equal(true);
  });
});
