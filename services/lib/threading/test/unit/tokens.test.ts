import { expect } from 'chai';
import {
  decideThread,
  isRefusal,
  outboundMessageId,
  parseInbound,
  parseSubjectTags,
  plusAddress,
  readToken,
  tagSubject,
  ticketToken,
  tokenFooter,
} from '../../src/index.js';
import { world } from './world.js';

describe('tokens, subject tags and Message-IDs', () => {
  it('a token reads back to its ticket from a footer, a plus-address or alone', () => {
    const token = ticketToken(123456, 's3cret');
    expect(token).to.match(/^[0-9a-z]+-[a-z2-7]{12}$/);
    expect(readToken(`thanks\n> ${tokenFooter(123456, 's3cret')}`, 's3cret')).to.equal(123456);
    expect(readToken(plusAddress('support', 'tix.localhost', 123456, 's3cret'), 's3cret')).to.equal(123456);
    expect(readToken(token.toUpperCase(), 's3cret')).to.equal(123456);
  });

  it('another secret, an altered id or signature reads as null', () => {
    const token = ticketToken(42, 's3cret');
    expect(readToken(token, 'other')).to.equal(null);
    expect(readToken(token.replace(/^[0-9a-z]+/, '1b'), 's3cret')).to.equal(null);
    expect(readToken(`${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`, 's3cret')).to.equal(null);
    expect(readToken('', 's3cret')).to.equal(null);
    expect(() => ticketToken(0, 's')).to.throw(RangeError);
    expect(() => ticketToken(1, '')).to.throw(RangeError);
  });

  it('subject tags parse and are added once', () => {
    expect(parseSubjectTags('Re: [SUP-42] Printer [ops-7]')).to.deep.equal([
      { prefix: 'SUP', number: 42 },
      { prefix: 'OPS', number: 7 },
    ]);
    expect(parseSubjectTags('SUP-42 without brackets, [SUP-0], [SUP-x]')).to.deep.equal([]);
    expect(tagSubject('Printer', 'SUP-42')).to.equal('[SUP-42] Printer');
    expect(tagSubject('Re: [SUP-42] Printer', 'SUP-42')).to.equal('Re: [SUP-42] Printer');
  });

  it('outbound Message-IDs name the ticket and comment and are not guessable', () => {
    expect(outboundMessageId(5, 9, 'tix.localhost', () => 'abc')).to.equal('<tix.5.9.abc@tix.localhost>');
    expect(outboundMessageId(5, 9, 'tix.localhost')).to.not.equal(outboundMessageId(5, 9, 'tix.localhost'));
  });

  it('list mail is accepted when the mailbox setting says so', async () => {
    const raw = Buffer.from(
      'From: dev@lists.test\r\nTo: support@tix.localhost\r\nList-Id: <dev.lists.test>\r\nSubject: hi\r\n\r\nbody',
    );
    const parsed = await parseInbound(raw);
    if (isRefusal(parsed)) throw new Error('refused');
    expect(await decideThread(parsed, world())).to.deep.equal({ action: 'ignore', reason: 'list' });
    const accepting = { ...world(), settings: { reopenWindowDays: 14, acceptListMail: true } };
    expect(await decideThread(parsed, accepting)).to.deep.equal({ action: 'new_ticket' });
  });

  it('a closed ticket with no closed_at opens a new linked ticket', async () => {
    const raw = Buffer.from(
      'From: alice@example.com\r\nTo: support@tix.localhost\r\nIn-Reply-To: <x@y>\r\nSubject: hi\r\n\r\nbody',
    );
    const parsed = await parseInbound(raw);
    if (isRefusal(parsed)) throw new Error('refused');
    const facts = {
      ...world(),
      ticketsByMessageId: () => new Map([['<x@y>', 77]]),
      ticket: (id: number) =>
        id === 77
          ? {
              id,
              status: 'done',
              closed: true,
              closedAt: null,
              mergedInto: null,
              requesterEmails: ['alice@example.com'],
              ccEmails: [],
            }
          : null,
    };
    expect(await decideThread(parsed, facts)).to.deep.equal({
      action: 'new_ticket',
      linkedTo: 77,
      linkReason: 'closed',
    });
  });
});
