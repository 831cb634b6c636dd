import { expect } from 'chai';
import { createSecretBox, parseSecretKey } from '../../src/subscriptions/secret-box.js';

describe('secret box', () => {
  const key = Buffer.alloc(32, 3);

  it('seals with AES-256-GCM (a fresh IV each time) and opens again', () => {
    const box = createSecretBox(key);
    const one = box.seal('whsec_abc');
    const two = box.seal('whsec_abc');
    expect(one)
      .to.match(/^enc:v1:/)
      .and.not.include('abc');
    expect(one).to.not.equal(two);
    expect(box.open(one)).to.equal('whsec_abc');
    expect(box.open(two)).to.equal('whsec_abc');
    expect(box.encrypts).to.equal(true);
  });

  it('refuses a tampered value, another key, or a sealed value without a key', () => {
    const sealed = createSecretBox(key).seal('s3cr3t-value-000000');
    const raw = Buffer.from(sealed.slice(7), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => createSecretBox(key).open(`enc:v1:${raw.toString('base64')}`)).to.throw(
      /cannot be decrypted/,
    );
    expect(() => createSecretBox(Buffer.alloc(32, 4)).open(sealed)).to.throw(/cannot be decrypted/);
    expect(() => createSecretBox(null).open(sealed)).to.throw(/WEBHOOK_SECRET_KEY is not set/);
    expect(() => createSecretBox(key).open('enc:v1:AAAA')).to.throw(/damaged/);
    expect(() => createSecretBox(key).open('deleted:')).to.throw(/unknown/);
  });

  it('without a key stores plainly, and plain values open with or without a key', () => {
    const stored = createSecretBox(null).seal('dev-secret-0123456');
    expect(stored).to.equal('plain:dev-secret-0123456');
    expect(createSecretBox(null).open(stored)).to.equal('dev-secret-0123456');
    expect(createSecretBox(key).open(stored)).to.equal('dev-secret-0123456');
  });

  it('parses a 32-byte key from hex or base64 only', () => {
    expect(parseSecretKey('ab'.repeat(32))).to.deep.equal(Buffer.alloc(32, 0xab));
    expect(parseSecretKey(Buffer.alloc(32, 7).toString('base64'))).to.deep.equal(Buffer.alloc(32, 7));
    expect(parseSecretKey('ab'.repeat(16))).to.equal(null);
    expect(parseSecretKey(Buffer.alloc(16).toString('base64'))).to.equal(null);
    expect(parseSecretKey('not a key')).to.equal(null);
    expect(() => createSecretBox(Buffer.alloc(16))).to.throw(/32 bytes/);
  });
});
