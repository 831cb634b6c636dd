/** The pure rules of outbound mail: settings validation, the reply's text, linked files, DSN reasons. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { isRefusal, parseInbound, readToken, tokenFooter } from '@tix/threading';
import { formatFrom, isEmailAddress } from '../../src/outbound/addresses.js';
import { linkedAttachmentIds } from '../../src/outbound/attachments.js';
import { bounceReason, bouncedMessageIds } from '../../src/outbound/bounces.js';
import { replyHtml, replyText } from '../../src/outbound/reply.js';
import { addressOf } from '../../src/outbound/sender.js';
import { validateSettingsChange } from '../../src/outbound/settings.js';

const CORPUS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../lib/threading/test/corpus',
);

function refusal(change: Parameters<typeof validateSettingsChange>[0]): Record<string, unknown> | null {
  try {
    validateSettingsChange(change);
    return null;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).kind).to.equal('validation_failed');
    return (error as AppError).validationErrors ?? {};
  }
}

describe('outbound mail rules', () => {
  it('validates project mail settings field by field', () => {
    expect(refusal({ fromAddress: '', signature: 'x'.repeat(10_000), reopenWindowDays: 365 })).to.equal(null);
    expect(
      refusal({ reopenWindowDays: 0, ackBody: '{{ticket.number}} {{ ticket.title }} {{requester.name}}' }),
    ).to.equal(null);
    expect(Object.keys(refusal({ fromAddress: 'a b@example.com' })!)).to.deep.equal(['from_address']);
    expect(Object.keys(refusal({ fromAddress: 'x@y' + 'z'.repeat(320) })!)).to.deep.equal(['from_address']);
    expect(Object.keys(refusal({ signature: 'x'.repeat(10_001) })!)).to.deep.equal(['signature']);
    expect(Object.keys(refusal({ reopenWindowDays: -1 })!)).to.deep.equal(['reopen_window_days']);
    expect(Object.keys(refusal({ reopenWindowDays: 1.5 })!)).to.deep.equal(['reopen_window_days']);
    expect(Object.keys(refusal({ ackSubject: 'Hi\r\nBcc: x@evil.example' })!)).to.deep.equal(['ack_subject']);
    expect(String(refusal({ ackBody: 'Hi {{user.password}}' })!.ack_body)).to.contain('{{user.password}}');
    expect(Object.keys(refusal({ fromName: 'A\nB' })!)).to.deep.equal(['from_name']);
  });

  it('checks addresses and quotes display names', () => {
    expect(isEmailAddress('support@example.com')).to.equal(true);
    expect(isEmailAddress('support+x@sub.example.co')).to.equal(true);
    for (const bad of ['support', 'a@b@c', '<a@b.c>', 'a@-b.c', 'a"b@c.d', 'a@b.c\r\n'])
      expect(isEmailAddress(bad), bad).to.equal(false);
    expect(formatFrom('Acme "Help" Desk\r\nBcc: x', 'help@acme.example')).to.equal(
      '"Acme  Help  Desk Bcc: x" <help@acme.example>',
    );
    expect(formatFrom('', 'help@acme.example')).to.equal('help@acme.example');
    expect(addressOf('"Acme" <Help@Acme.example>')).to.equal('help@acme.example');
    expect(addressOf('help@acme.example')).to.equal('help@acme.example');
  });

  it('builds the text and HTML with the signature and the token footer', () => {
    const footer = tokenFooter(42, 'secret-for-tests');
    const text = replyText('Hello\n\n', 'Team\nAcme', footer);
    expect(text).to.equal(`Hello\n\n-- \nTeam\nAcme\n\n${footer}`);
    expect(replyText('Hello', '  ', footer)).to.equal(`Hello\n\n${footer}`);
    expect(readToken(text, 'secret-for-tests')).to.equal(42);
    const html = replyHtml('<p>Hello</p>', '<Team> & co', footer);
    expect(html).to.contain('<p>Hello</p>').and.contain('&lt;Team&gt; &amp; co').and.contain(footer);
  });

  it('finds the attachments a comment links to, once each', () => {
    expect(
      linkedAttachmentIds(
        'see /api/attachments/12/download?project_id=1 and /v1/attachments/7/download',
        '<a href="/api/attachments/12/download">x</a> attachments/abc/download',
      ),
    ).to.deep.equal([12, 7]);
    expect(linkedAttachmentIds(null, '')).to.deep.equal([]);
  });

  it('reads the bounced Message-ID and the reason of the corpus DSNs', async () => {
    for (const file of ['066-bounce-dsn.eml', '067-bounce-dsn-unthreaded.eml']) {
      const parsed = await parseInbound(await readFile(path.join(CORPUS, file)));
      if (isRefusal(parsed)) throw new Error(`${file} did not parse`);
      expect(bouncedMessageIds(parsed)[0], file).to.equal('<tix.1.10.aaaa@tix.localhost>');
      expect(bounceReason(parsed), file).to.equal('nobody@example.com: status 5.1.1');
    }
    const daemon = await parseInbound(await readFile(path.join(CORPUS, '068-bounce-plain-daemon.eml')));
    if (isRefusal(daemon)) throw new Error('068 did not parse');
    expect(bounceReason(daemon)).to.be.a('string').and.not.equal('');
  });
});
