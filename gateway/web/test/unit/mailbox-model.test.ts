import { expect } from 'chai';
import { mailboxStatus, outcomeParts, testSummary } from '../../src/screens/admin/mailbox-model';

describe('the mailbox screen’s wording', () => {
  it('says Paused before any status, and words the others', () => {
    expect(mailboxStatus({ paused: true, status: 'connected' })).to.equal('Paused');
    expect(mailboxStatus({ paused: false, status: 'connected' })).to.equal('Connected');
    expect(mailboxStatus({ paused: false, status: 'error' })).to.equal('Error');
    expect(mailboxStatus({ paused: false, status: 'idle' })).to.equal('Idle');
    expect(mailboxStatus({ paused: false, status: 'reconnecting' })).to.equal('reconnecting');
  });

  it('tells what a connection test answered', () => {
    const imap = { address: 'help@example.com', kind: 'imap' as const };
    expect(testSummary(imap, { ok: true, error: null, message_count: 3 })).to.equal(
      'Connected to help@example.com: 3 messages in the inbox.',
    );
    expect(testSummary(imap, { ok: true, error: null, message_count: 1 })).to.contain('1 message in');
    expect(testSummary(imap, { ok: true, error: null, message_count: null })).to.equal(
      'Connected to help@example.com.',
    );
    expect(testSummary(imap, { ok: false, error: 'Authentication failed', message_count: null })).to.equal(
      'Testing help@example.com failed: Authentication failed.',
    );
    expect(testSummary({ ...imap, kind: 'smtp' }, { ok: true, error: null, message_count: null })).to.contain(
      'is ready',
    );
  });

  it('reads an outcome’s action, ticket and reason, and nothing it does not expect', () => {
    expect(outcomeParts({ action: 'new_ticket', ticket_id: 17 })).to.deep.equal({
      action: 'new ticket',
      ticketId: 17,
      reason: null,
    });
    expect(outcomeParts({ action: 'ignored', reason: 'auto-reply' })).to.deep.equal({
      action: 'ignored',
      ticketId: null,
      reason: 'auto-reply',
    });
    expect(outcomeParts({ ticket_id: '17', action: 5, reason: '' })).to.deep.equal({
      action: null,
      ticketId: null,
      reason: null,
    });
    expect(outcomeParts({ ticket_id: -1 }).ticketId).to.equal(null);
    expect(outcomeParts(null)).to.deep.equal({ action: null, ticketId: null, reason: null });
  });
});
