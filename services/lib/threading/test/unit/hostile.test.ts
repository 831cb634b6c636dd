import { expect } from 'chai';
import { decideThread, isRefusal, parseInbound } from '../../src/index.js';
import { world } from './world.js';

const head = (ct: string): string =>
  `From: Alice <alice@example.com>\r\nTo: support@tix.localhost\r\nSubject: hostile\r\nMessage-ID: <h@example.com>\r\nMIME-Version: 1.0\r\nContent-Type: ${ct}\r\n\r\n`;

function manyParts(n: number): Buffer {
  const parts: string[] = [head('multipart/mixed; boundary="p"')];
  for (let i = 0; i < n; i++) parts.push(`--p\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`);
  parts.push('--p--\r\n');
  return Buffer.from(parts.join(''));
}

function nested(depth: number): Buffer {
  let body = 'Content-Type: text/plain\r\n\r\ninnermost\r\n';
  for (let i = depth; i > 0; i--) {
    body = `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n${body}--n${i}--\r\n`;
  }
  return Buffer.from(head(`multipart/mixed; boundary="n0"`) + `--n0\r\n${body}--n0--\r\n`);
}

function nestedMessages(depth: number): Buffer {
  let body = 'Subject: inner\r\n\r\ninnermost\r\n';
  for (let i = 0; i < depth; i++) body = `Content-Type: message/rfc822\r\n\r\n${body}`;
  return Buffer.from(head('multipart/mixed; boundary="x"') + `--x\r\n${body}--x--\r\n`);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

describe('hostile mail: a typed refusal, fast, never a throw', () => {
  it('10,000 parts -> too_many_parts', async () => {
    const { value, ms } = await timed(() => parseInbound(manyParts(10_000)));
    expect(value).to.deep.equal({ refused: 'too_many_parts' });
    expect(ms).to.be.below(1000);
  });

  it('a few parts under the limit parse', async () => {
    const value = await parseInbound(manyParts(20));
    expect(isRefusal(value)).to.equal(false);
  });

  it('a 50 MB attachment -> too_large', async () => {
    const raw = Buffer.concat([
      Buffer.from(head('application/octet-stream')),
      Buffer.alloc(50 * 1024 * 1024, 65),
    ]);
    const { value, ms } = await timed(() => parseInbound(raw));
    expect(value).to.deep.equal({ refused: 'too_large' });
    expect(ms).to.be.below(500);
  });

  it('a size limit given by the caller applies', async () => {
    const value = await parseInbound(Buffer.from(head('text/plain') + 'x'.repeat(5000)), { maxBytes: 1000 });
    expect(value).to.deep.equal({ refused: 'too_large' });
  });

  it('5,000 nested multiparts -> too_deep', async () => {
    const { value, ms } = await timed(() => parseInbound(nested(5000)));
    expect(value).to.deep.equal({ refused: 'too_deep' });
    expect(ms).to.be.below(1000);
  });

  it('nesting within the limit parses and keeps the innermost text', async () => {
    const value = await parseInbound(nested(5));
    if (isRefusal(value)) throw new Error(`refused ${value.refused}`);
    expect(value.text).to.contain('innermost');
  });

  it('1,000 nested message/rfc822 -> too_deep', async () => {
    const value = await parseInbound(nestedMessages(1000));
    expect(value).to.deep.equal({ refused: 'too_deep' });
  });

  it('empty and non-mail input -> unparseable', async () => {
    expect(await parseInbound(Buffer.alloc(0))).to.deep.equal({ refused: 'unparseable' });
    expect(await parseInbound(Buffer.from('\r\n\r\nbody only'))).to.deep.equal({ refused: 'unparseable' });
    expect(await parseInbound('x' as unknown as Buffer)).to.deep.equal({ refused: 'unparseable' });
  });

  it('an mbox "From " line before the headers is accepted', async () => {
    const value = await parseInbound(
      Buffer.from(`From alice@example.com Mon Jun 15 10:00:00 2026\n${head('text/plain')}hi`),
    );
    expect(isRefusal(value)).to.equal(false);
  });

  it('raw CR/LF smuggled into a display name or subject stays on one line', async () => {
    const raw = Buffer.from(
      'From: "Eve\rBcc: victim@example.com" <eve@example.com>\r\nTo: support@tix.localhost\r\nSubject: hi\rBcc: x@example.com\r\n\r\nbody',
    );
    const value = await parseInbound(raw);
    if (isRefusal(value)) throw new Error(`refused ${value.refused}`);
    expect(value.subject).to.not.match(/[\r\n]/);
    expect(value.from?.name ?? '').to.not.match(/[\r\n]/);
    expect(await decideThread(value, world())).to.have.property('action');
  });
});
