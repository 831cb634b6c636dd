import { expect } from 'chai';
import {
  CATEGORIES,
  PRIORITY_NOISE,
  RESOLVER_COUNT,
  SECRET_PATTERN,
  syntheticTicketEvents,
  syntheticTickets,
} from '../src/index.js';

describe('the synthetic corpus', () => {
  const tickets = syntheticTickets({ count: 1_000, seed: 7 });

  it('is the same for the same seed, and another for another seed', () => {
    expect(syntheticTickets({ count: 1_000, seed: 7 })).to.deep.equal(tickets);
    expect(syntheticTickets({ count: 50, seed: 7 })).to.deep.equal(tickets.slice(0, 50));
    expect(syntheticTickets({ count: 50, seed: 8 })).not.to.deep.equal(tickets.slice(0, 50));
  });

  it("covers every category, with the category's tag first and only tags of its own", () => {
    for (const category of CATEGORIES) {
      const own = tickets.filter((ticket) => ticket.category === category.slug);
      expect(own.length, category.slug).to.be.greaterThan(60);
      for (const ticket of own) {
        expect(ticket.tags[0]).to.equal(category.slug);
        expect(category.extraTags).to.include.members(ticket.tags.slice(1));
        expect(category.resolvers).to.include(ticket.resolverIndex);
        expect(ticket.resolverIndex).to.be.below(RESOLVER_COUNT);
      }
    }
  });

  it("gives nearly every ticket its category's priority", () => {
    const noisy = tickets.filter(
      (ticket) =>
        ticket.priority !== CATEGORIES.find((category) => category.slug === ticket.category)!.priority,
    );
    expect(noisy.length / tickets.length).to.be.within(PRIORITY_NOISE / 2, PRIORITY_NOISE * 2);
  });

  it('fills every placeholder, and names the personal data a reply carries', () => {
    for (const ticket of tickets) {
      const texts = [ticket.title, ticket.description, ticket.reply, ticket.customerComment ?? ''];
      for (const text of texts) expect(text, text).not.to.match(/[{}]/);
      expect(ticket.reply).to.match(/^(Hi|Hello) [A-Z][a-z]+,\n\n/);
      for (const value of ticket.replyPersonalData) expect(ticket.reply).to.include(value);
      expect(ticket.reply).not.to.match(SECRET_PATTERN);
    }
    const withData = tickets.filter((ticket) => ticket.replyPersonalData.length > 0).length;
    expect(withData / tickets.length).to.be.within(0.2, 0.5);
  });

  it('plants a unique secret in some internal notes, and nowhere else', () => {
    const notes = tickets.flatMap((ticket) => (ticket.internalNote ? [ticket.internalNote] : []));
    expect(notes.length / tickets.length).to.be.within(0.15, 0.35);
    expect(new Set(notes.map((note) => note.secret)).size).to.equal(notes.length);
    for (const note of notes) expect(note.content).to.include(note.secret);
    for (const ticket of tickets)
      expect(`${ticket.title} ${ticket.description} ${ticket.customerComment ?? ''}`).not.to.match(
        SECRET_PATTERN,
      );
  });

  describe('as events', () => {
    const context = {
      projectId: 3,
      ticketTypeId: 5,
      prefix: 'SUP',
      ticketId: 40,
      reporterId: 9,
      resolverIds: [11, 12, 13],
      createdAt: new Date('2026-01-05T08:00:00.000Z'),
    };
    const ticket = tickets.find(
      (candidate) => candidate.customerComment && candidate.internalNote?.afterReply,
    )!;

    it('live as the ticket and comment services write them: created, comments, closed as resolved', () => {
      const events = syntheticTicketEvents(ticket, context);
      expect(events.map((event) => event.type)).to.deep.equal([
        'ticket.created',
        'comment.created',
        'comment.created',
        'comment.created',
        'ticket.updated',
        'ticket.status_changed',
        'ticket.assigned',
      ]);
      const resolver = context.resolverIds[ticket.resolverIndex];
      const [created, followUp, reply, note, closed] = events;
      expect(created!.data).to.deep.include({
        id: 40,
        ticket_number: 'SUP-40',
        status: 'open',
        version: 1,
        created_by: 9,
        assigned_to: null,
        priority: ticket.priority,
        tags: ticket.tags,
      });
      expect(created!.write_types).to.deep.equal(['ticket.created']);
      expect(
        [followUp, reply, note].map((event) => [event!.data.user_id, event!.data.is_internal]),
      ).to.deep.equal([
        [9, false],
        [resolver, false],
        [resolver, true],
      ]);
      expect(reply!.data.content).to.equal(ticket.reply);
      expect(note!.data.content).to.include(ticket.internalNote!.secret);
      expect(closed!.data).to.deep.include({
        status: 'closed',
        resolution_type: 'resolved',
        assigned_to: resolver,
        version: 2,
      });
      expect(closed!.write_types).to.deep.equal([
        'ticket.updated',
        'ticket.status_changed',
        'ticket.assigned',
      ]);
      expect(closed!.changes).to.deep.include({ status: { from: 'open', to: 'closed' } });
      // Oldest first, every comment before the close; ids unique and the same on every call.
      const times = events.map((event) => event.occurred_at);
      expect([...times].sort()).to.deep.equal(times);
      expect(new Set(events.map((event) => event.id)).size).to.equal(events.length);
      expect(syntheticTicketEvents(ticket, context)).to.deep.equal(events);
    });

    it('stop at the creation, the follow-up and the note for a ticket left open', () => {
      const events = syntheticTicketEvents(ticket, { ...context, resolved: false, openStatus: 'new' });
      expect(events.map((event) => [event.type, event.data.is_internal])).to.deep.equal([
        ['ticket.created', undefined],
        ['comment.created', false],
        ['comment.created', true],
      ]);
      expect(events[0]!.data.status).to.equal('new');
    });
  });
});
