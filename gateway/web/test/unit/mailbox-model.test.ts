import { expect } from 'chai';
import {
  mailboxStatus,
  OAUTH2_PRESETS,
  oauth2CreateBody,
  oauth2UpdateBody,
  outcomeParts,
  testSummary,
} from '../../src/screens/admin/mailbox-model';

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

  it('sends a new OAuth2 client trimmed, without empty optional fields', () => {
    expect(
      oauth2CreateBody({
        token_url: ' https://oauth2.googleapis.com/token ',
        client_id: ' id ',
        client_secret: '',
        refresh_token: ' rt ',
        scope: ' ',
      }),
    ).to.deep.equal({
      token_url: 'https://oauth2.googleapis.com/token',
      client_id: 'id',
      refresh_token: 'rt',
    });
    expect(
      oauth2CreateBody({
        token_url: 'u',
        client_id: 'c',
        client_secret: ' s ',
        refresh_token: 'r',
        scope: 'x y',
      }),
    ).to.deep.equal({
      token_url: 'u',
      client_id: 'c',
      client_secret: ' s ',
      refresh_token: 'r',
      scope: 'x y',
    });
  });

  it('sends only the OAuth2 fields typed into for a sign-in change, or none', () => {
    const empty = { token_url: '', client_id: '', client_secret: '', refresh_token: '', scope: '' };
    expect(oauth2UpdateBody(empty)).to.equal(null);
    expect(oauth2UpdateBody({ ...empty, refresh_token: ' new ' })).to.deep.equal({ refresh_token: 'new' });
  });

  it('knows the token URL and IMAP scope of Google and Microsoft', () => {
    expect(OAUTH2_PRESETS.map((preset) => [preset.id, preset.scope])).to.deep.equal([
      ['google', 'https://mail.google.com/'],
      ['microsoft', 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access'],
    ]);
    for (const preset of OAUTH2_PRESETS) expect(new URL(preset.token_url).protocol).to.equal('https:');
  });
});
