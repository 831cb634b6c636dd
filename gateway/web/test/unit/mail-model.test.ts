import { expect } from 'chai';
import {
  delivery,
  mailByComment,
  recipients,
  ticketMailView,
  type OutboundMessage,
  type ReceivedMessage,
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

function received(id: number, outcome: Record<string, unknown> | null): ReceivedMessage {
  return {
    id,
    mailbox_id: 2,
    source: 'smtp',
    message_id: `<m${id}@c.example>`,
    size: 100,
    received_at: '2026-12-03T09:00:00.000Z',
    state: 'processed',
    outcome,
  };
}

const PASSED = {
  spf: 'pass',
  dkim: 'pass',
  dkim_domain: 'c.example',
  dmarc: 'pass',
  dmarc_domain: 'c.example',
};

describe('a ticket’s received mail in the thread', () => {
  it('puts each comment’s sender checks on it, and the opening mail’s atop the thread', () => {
    const view = ticketMailView({
      messages: [message({ id: 5, comment_id: 9 })],
      received: [
        received(1, { action: 'new_ticket', ticket_id: 42, from: 'carol@c.example', auth: PASSED }),
        received(2, {
          action: 'comment',
          ticket_id: 42,
          comment_id: 8,
          from: 'carol@c.example',
          auth: { ...PASSED, dkim: 'none', dkim_domain: undefined, dmarc: 'fail' },
          untrusted: true,
        }),
        received(3, { action: 'reopen_and_comment', ticket_id: 42, comment_id: 10, auth: PASSED }),
        // No checks recorded: nothing to show.
        received(4, { action: 'comment', ticket_id: 42, comment_id: 11 }),
        received(6, null),
      ],
    });
    expect(view.sent.get(9)!.map((m) => m.id)).to.deep.equal([5]);
    expect(view.opening).to.deep.equal({
      line: 'SPF pass · DKIM pass (c.example) · DMARC pass',
      warning: null,
      from: 'carol@c.example',
    });
    expect(view.received.get(8)).to.deep.equal({
      line: 'SPF pass · DKIM none · DMARC fail',
      warning: 'Sender not verified: DMARC failed for c.example',
      from: 'carol@c.example',
    });
    expect(view.received.get(10)).to.include({ warning: null, from: null });
    expect([...view.received.keys()]).to.deep.equal([8, 10]);
  });

  it('has no opening checks when the ticket was not opened by mail', () => {
    const view = ticketMailView({
      messages: [],
      received: [received(2, { action: 'comment', ticket_id: 42, comment_id: 8, auth: PASSED })],
    });
    expect(view.opening).to.equal(null);
    expect(view.received.size).to.equal(1);
    expect(ticketMailView({ messages: [], received: [] })).to.deep.equal({
      sent: new Map(),
      received: new Map(),
      opening: null,
    });
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
