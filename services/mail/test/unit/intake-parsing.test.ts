import { expect } from 'chai';
import { extractMessageId } from '../../src/inbound/message-id.js';
import { recipientSlug } from '../../src/inbound/smtp-listener.js';

describe('recipientSlug', () => {
  it('reads <slug>@domain and <slug>+anything@domain, case-insensitively', () => {
    expect(recipientSlug('sup@tix.localhost', 'tix.localhost')).to.equal('sup');
    expect(recipientSlug('SUP+Ticket-42@TIX.localhost', 'tix.localhost')).to.equal('sup');
  });
  it('refuses other domains and malformed local parts', () => {
    expect(recipientSlug('sup@example.com', 'tix.localhost')).to.equal(null);
    expect(recipientSlug('@tix.localhost', 'tix.localhost')).to.equal(null);
    expect(recipientSlug('a b@tix.localhost', 'tix.localhost')).to.equal(null);
    expect(recipientSlug('+x@tix.localhost', 'tix.localhost')).to.equal(null);
  });
});

describe('extractMessageId', () => {
  it('reads a folded Message-ID header and ignores the body', () => {
    const raw = Buffer.from(
      'Subject: x\r\nMessage-ID:\r\n <abc@example.com>\r\n\r\nMessage-ID: <body@x>\r\n',
    );
    expect(extractMessageId(raw)).to.equal('abc@example.com');
  });
  it('is null without one', () => {
    expect(extractMessageId(Buffer.from('Subject: x\r\n\r\nMessage-ID: <body@x>\r\n'))).to.equal(null);
  });
});
