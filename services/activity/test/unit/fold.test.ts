import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '@tix/protos';
import {
  EXCERPT_LENGTH,
  excerptOf,
  foldEvent,
  foldedTicketType,
  foldWriteEvent,
} from '../../src/log/fold.js';

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
      foldWriteEvent(event(type, ticket, { changes, write_types: writeTypes })),
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
    const record = foldWriteEvent(old);
    expect(record.entry.type).to.equal('ticket.updated');
    expect(record.entry.actor).to.deep.equal({ kind: 'system', user_id: null, api_key_id: null });
  });

  it('keeps the ticket number and title from ticket events, for summaries', () => {
    expect(foldWriteEvent(event('ticket.created', ticket)).subject).to.deep.equal({
      id: 42,
      projectId: 1,
      ticketNumber: 'SUP-42',
      title: 'Login loop',
      version: 7,
    });
    expect(foldWriteEvent(event('comment.created', { id: 3, ticket_id: 42, content: 'x' })).subject).to.equal(
      null,
    );
  });

  it('makes each comment and attachment event an entry of its own about its ticket', () => {
    const comment = foldWriteEvent(
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
    const attachment = foldWriteEvent(
      event('attachment.created', { id: 8, ticket_id: 42, original_filename: 'log.txt' }),
    );
    expect(attachment.entry.filename).to.equal('log.txt');
    expect(attachment.entry.comment).to.equal(null);
  });

  it('streams the webhook delivery body, without the v1.1 envelope', () => {
    const record = foldWriteEvent(
      event('ticket.updated', ticket, { changes: { title: { from: 'a', to: 'b' } } }),
    );
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

  describe('ai.* events', () => {
    const admin = { kind: 'user' as const, user_id: 5, api_key_id: null };
    const aiEvent = (type: string, data: Record<string, unknown>, extra: Partial<DomainEvent> = {}) =>
      event(type, data, { source: 'ai', actor: admin, ...extra });

    it('are never streamed: /v1/events serves what webhooks deliver, and ai.* is not subscribable', () => {
      for (const type of ['ai.guardrails_updated', 'ai.action_executed', 'ai.kill_switch_cleared'])
        expect(foldEvent(aiEvent(type, { project_id: 1 })).stream).to.equal(null);
    });

    it('make a project entry of a guardrails update, with its changes by dotted path', () => {
      const changes = { 'limits.max_actions_per_hour': { from: 60, to: 10 } };
      const { entry } = foldEvent(
        aiEvent('ai.guardrails_updated', { project_id: 1, version: 4 }, { changes }),
      );
      expect(entry).to.deep.include({
        type: 'ai.guardrails_updated',
        projectId: 1,
        ticketId: null,
        changes,
        details: { version: 4 },
      });
      expect(entry?.foldKey).to.match(/^event:/);
    });

    it("make a global kill switch's entry one without a project, with the reason that applies", () => {
      const global = aiEvent('ai.kill_switch_cleared', {
        scope: 'global',
        project_id: null,
        reason: 'Tags wrong',
        clear_reason: 'Fixed',
      });
      // The ai service writes a global switch's events without a project.
      delete global.project_id;
      expect(foldEvent(global).entry).to.deep.include({ projectId: null, details: { reason: 'Fixed' } });
      const project = aiEvent('ai.kill_switch_activated', {
        scope: 'project',
        project_id: 1,
        reason: 'Tags wrong',
      });
      expect(foldEvent(project).entry).to.deep.include({ projectId: 1, details: { reason: 'Tags wrong' } });
    });

    it("put an acknowledgement on the action's ticket, changing none of its fields", () => {
      const action = { id: 981, ticket_id: 42, action_type: 'add_tags', review_note: '' };
      const { entry } = foldEvent(
        aiEvent(
          'ai.action_acknowledged',
          { action },
          { changes: { status: { from: 'pending_review', to: 'acknowledged' } } },
        ),
      );
      expect(entry).to.deep.include({
        ticketId: 42,
        changes: {},
        details: { action_id: 981, action_type: 'add_tags', review_note: null },
      });
    });

    it('add no entry for an executed or reverted action (its write is one), nor for a type unknown here', () => {
      const action = { id: 981, ticket_id: 42, action_type: 'set_priority' };
      for (const type of ['ai.action_executed', 'ai.action_reverted', 'ai.action_invented'])
        expect(foldEvent(aiEvent(type, { action })).entry).to.equal(null);
    });
  });
});
