import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { ParsedInbound } from '@tix/threading';
import { acknowledgement, refusal, renderTemplate } from '../../src/automatic/automatic-mail.js';
import { PermanentFailure } from '../../src/processing/directory.js';
import { isPermanent, trustedAuth } from '../../src/processing/process-message.js';

describe('mail processing: automatic mail and trust (pure parts)', () => {
  const ack = (settings: { ackSubject: string; ackBody: string }) =>
    acknowledgement({
      projectId: 1,
      projectName: 'Support',
      ticket: { id: 42, ticketNumber: 'SUP-7', title: 'Printer' },
      requesterName: 'Alice',
      to: 'alice@example.com',
      from: '"Support" <sup@tix.localhost>',
      inboundMessageId: '9',
      customerMessageId: '<m1@example.com>',
      settings,
      domain: 'tix.localhost',
      tokenSecret: 'secret-secret-secret',
    });

  it('renders the placeholders of a template and leaves unknown ones as written', () => {
    expect(
      renderTemplate('{{ticket.number}} for {{ requester.name }} in {{project.name}} {{other.thing}}', {
        'ticket.number': 'SUP-7',
        'requester.name': 'Alice',
        'project.name': 'Support',
      }),
    ).to.equal('SUP-7 for Alice in Support {{other.thing}}');
  });

  it('an acknowledgement is tagged, threads on the customer mail, and carries the token footer', () => {
    const mail = ack({ ackSubject: '', ackBody: '' });
    expect(mail).to.include({
      kind: 'acknowledgement',
      ticketId: 42,
      to: 'alice@example.com',
      inReplyTo: '<m1@example.com>',
    });
    expect(mail.subject).to.equal('[SUP-7] We received your request: Printer');
    expect(mail.references).to.deep.equal(['<m1@example.com>']);
    expect(mail.text)
      .to.contain('SUP-7')
      .and.to.match(/\[ref:[a-z0-9-]+\]/);
    expect(mail.messageId).to.match(/^<tix\.42\.0\.[^@]+@tix\.localhost>$/);
    const custom = ack({ ackSubject: 'Got it: {{ticket.title}}', ackBody: 'Dear {{requester.name}}' });
    expect(custom.subject).to.equal('[SUP-7] Got it: Printer');
    expect(custom.text.startsWith('Dear Alice')).to.equal(true);
  });

  it('a refusal names the reason and the subject, with no ticket', () => {
    const mail = refusal({
      projectId: 1,
      reason: 'too_large',
      to: 'bob@example.com',
      from: 'sup@tix.localhost',
      subject: 'Huge',
      inboundMessageId: '3',
      customerMessageId: null,
      domain: 'tix.localhost',
    });
    expect(mail).to.include({
      kind: 'refusal',
      ticketId: null,
      subject: 'Not delivered: Huge',
      inReplyTo: null,
    });
    expect(mail.text).to.contain('larger than we can accept');
  });

  it('believes only Authentication-Results from the trusted authserv-ids', () => {
    const parsed = {
      auth: [
        { authservId: 'evil.example', spf: 'pass', dkim: 'pass', dmarc: 'pass' },
        { authservId: 'MX.Tix.Example', spf: 'fail', dkim: 'none', dmarc: 'fail' },
      ],
    } as unknown as ParsedInbound;
    expect(trustedAuth(parsed, [])).to.deep.equal([]);
    expect(trustedAuth(parsed, ['mx.tix.example']).map((r) => r.dmarc)).to.deep.equal(['fail']);
  });

  it('retries what may pass later, fails at once what cannot', () => {
    expect(isPermanent(AppError.validation({ title: ['bad'] }))).to.equal(true);
    expect(isPermanent(new PermanentFailure('no ticket type'))).to.equal(true);
    expect(isPermanent(AppError.unavailable('down'))).to.equal(false);
    expect(isPermanent(new Error('socket hang up'))).to.equal(false);
  });
});
