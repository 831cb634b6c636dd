import { expect } from 'chai';
import {
  delivery,
  mailByComment,
  recipients,
  type OutboundMessage,
} from '../../src/screens/ticket/mail-model';
import { draftOf, settingsChange, type MailSettings } from '../../src/screens/admin/mail-settings-model';

function message(overrides: Partial<OutboundMessage>): OutboundMessage {
  return {
    id: 1,
    kind: 'reply',
    ticket_id: 42,
    comment_id: 7,
    to: ['carol@c.example'],
    cc: [],
    subject: 'Re: x',
    message_id: '<a@b>',
    state: 'sent',
    attempts: 1,
    last_error: null,
    sent_at: '2026-12-03T09:00:00.000Z',
    bounced_at: null,
    bounce_reason: null,
    created_at: '2026-12-03T09:00:00.000Z',
    ...overrides,
  };
}

describe('a ticket’s mail in the thread', () => {
  it('groups the messages by comment, oldest first, leaving out those of no comment', () => {
    const grouped = mailByComment([
      message({ id: 1, comment_id: null, kind: 'acknowledgement' }),
      message({ id: 2, comment_id: 7 }),
      message({ id: 3, comment_id: 8 }),
      message({ id: 4, comment_id: 7, state: 'bounced' }),
    ]);
    expect([...grouped.keys()]).to.deep.equal([7, 8]);
    expect(grouped.get(7)!.map((m) => m.id)).to.deep.equal([2, 4]);
  });

  it('words each state with its reason', () => {
    expect(delivery(message({ state: 'sent' }))).to.deep.equal({ tone: 'sent', label: 'Sent', reason: null });
    expect(delivery(message({ state: 'bounced', bounce_reason: '550 No such user' }))).to.include({
      tone: 'bounced',
      reason: '550 No such user',
    });
    expect(delivery(message({ state: 'failed', last_error: 'Connection refused' }))).to.include({
      label: 'Failed',
      reason: 'Connection refused',
    });
    expect(delivery(message({ state: 'queued' }))).to.deep.equal({
      tone: 'queued',
      label: 'Queued',
      reason: null,
    });
    expect(delivery(message({ state: 'sending', last_error: 'timeout' }))).to.include({
      label: 'Queued',
      reason: 'retrying: timeout',
    });
    expect(delivery(message({ state: 'suppressed' })).tone).to.equal('failed');
  });

  it('lists To, then CC marked', () => {
    expect(recipients({ to: ['a@x'], cc: ['b@x', 'c@x'] })).to.equal('a@x, b@x (CC), c@x (CC)');
  });
});

describe('the mail settings form', () => {
  const saved: MailSettings = {
    project_id: 1,
    from_name: 'Alpha',
    from_address: 'help@alpha.example',
    signature: '',
    acknowledge: false,
    ack_subject: '',
    ack_body: '',
    reopen_window_days: 14,
    accept_list_mail: false,
    updated_at: null,
  };

  it('sends nothing when nothing changed', () => {
    expect(settingsChange(saved, draftOf(saved))).to.deep.equal({});
  });

  it('sends only the changed fields, the address trimmed and the window as a number', () => {
    const draft = {
      ...draftOf(saved),
      acknowledge: true,
      from_address: ' new@alpha.example ',
      reopen_window_days: '30',
    };
    expect(settingsChange(saved, draft)).to.deep.equal({
      acknowledge: true,
      from_address: 'new@alpha.example',
      reopen_window_days: 30,
    });
    expect(settingsChange(saved, { ...draftOf(saved), from_address: ' help@alpha.example' })).to.deep.equal(
      {},
    );
  });

  it('sends a window that is not a whole number as typed, for the server to refuse by field', () => {
    expect(settingsChange(saved, { ...draftOf(saved), reopen_window_days: 'two' })).to.deep.equal({
      reopen_window_days: 'two',
    });
  });
});
