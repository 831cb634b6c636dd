import { expect } from 'chai';
import {
  checkEvents,
  generateSecret,
  secretProblem,
  SUBSCRIPTION_MESSAGES,
} from '../../src/subscriptions/subscription-rules.js';

describe('subscription rules', () => {
  it('generates whsec_ + base64 of 32 random bytes', () => {
    const secret = generateSecret();
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).to.have.length(32);
    expect(generateSecret()).to.not.equal(secret);
    expect(secretProblem(secret)).to.equal(null);
  });

  it('accepts 16..256 printable ASCII characters without spaces as a secret', () => {
    expect(secretProblem('a'.repeat(16))).to.equal(null);
    expect(secretProblem('~!@#$%^&*()_+{}|'.repeat(16))).to.equal(null);
    for (const bad of [
      'a'.repeat(15),
      'a'.repeat(257),
      'with space 0123456',
      'caf\u00e9-0123456789ab',
      'tab\t0123456789abcd',
      '',
    ]) {
      expect(secretProblem(bad), JSON.stringify(bad)).to.equal(SUBSCRIPTION_MESSAGES.secret);
    }
  });

  it('events: the spec enum plus the additive ticket types, duplicates collapsed, unknown names all named', () => {
    expect(checkEvents(['ticket.updated', 'comment.created', 'ticket.updated'])).to.deep.equal({
      events: ['ticket.updated', 'comment.created'],
    });
    expect(checkEvents(['ticket.deleted', 'ticket.merged', 'ticket.restored'])).to.deep.equal({
      events: ['ticket.deleted', 'ticket.merged', 'ticket.restored'],
    });
    expect(checkEvents([])).to.deep.equal({ problem: SUBSCRIPTION_MESSAGES.eventsEmpty });
    expect(checkEvents(['ticket.created', 'comment.updated', 'ping', 'x', 'x'])).to.deep.equal({
      problem:
        'Unknown event types: "comment.updated", "ping", "x". Allowed: ticket.created, ticket.updated, ' +
        'ticket.status_changed, ticket.assigned, comment.created, ticket.deleted, ticket.merged, ticket.restored',
    });
  });
});
