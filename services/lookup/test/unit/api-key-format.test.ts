import { createHash } from 'node:crypto';
import { expect } from 'chai';
import {
  API_KEY_LENGTH,
  apiKeyChecksum,
  apiKeyDisplayPrefix,
  encodeBase62,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from '../../src/api-keys/api-key-format.js';

/** A bit-by-bit CRC32 (IEEE 802.3), independent of zlib, to pin which checksum the keys carry. */
function referenceCrc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function referenceBase62(value: bigint, width: number): string {
  let out = '';
  for (let rest = value; rest > 0n; rest /= 62n) out = ALPHABET[Number(rest % 62n)] + out;
  return out.padStart(width, '0');
}

describe('API key format', () => {
  it('encodes base62 with the 0-9A-Za-z alphabet, zero-padded', () => {
    expect(encodeBase62(0n, 6)).to.equal('000000');
    expect(encodeBase62(61n, 6)).to.equal('00000z');
    expect(encodeBase62(62n, 6)).to.equal('000010');
    expect(encodeBase62(0xffffffffn, 6)).to.equal('4gfFC3');
    expect(() => encodeBase62(62n ** 6n, 6)).to.throw(RangeError);
  });

  it('is tix_ + 43 base62 characters of the secret + a 6-character CRC32 of everything before it', () => {
    const secret = Buffer.alloc(32, 0xab);
    const key = generateApiKey(secret);
    const body = `tix_${referenceBase62(BigInt(`0x${secret.toString('hex')}`), 43)}`;
    expect(key).to.equal(body + referenceBase62(BigInt(referenceCrc32(body)), 6));
    expect(key).to.have.length(API_KEY_LENGTH).and.to.have.length(53);
    expect(apiKeyChecksum(body)).to.equal(key.slice(-6));
  });

  it('keeps a fixed length for secrets with leading zero bytes and for the largest secret', () => {
    expect(generateApiKey(Buffer.alloc(32, 0))).to.have.length(53);
    expect(generateApiKey(Buffer.alloc(32, 0xff))).to.have.length(53);
    expect(isWellFormedApiKey(generateApiKey(Buffer.alloc(32, 0)))).to.be.true;
    expect(isWellFormedApiKey(generateApiKey(Buffer.alloc(32, 0xff)))).to.be.true;
  });

  it('generates different, well-formed keys', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(keys.size).to.equal(50);
    for (const key of keys) {
      expect(key).to.match(/^tix_[0-9A-Za-z]{49}$/);
      expect(isWellFormedApiKey(key)).to.be.true;
    }
  });

  it('rejects a key with any single character changed (the checksum catches typos offline)', () => {
    const key = generateApiKey();
    for (const index of [4, 20, 46, 47, 52]) {
      const original = key[index]!;
      const replacement = original === 'a' ? 'b' : 'a';
      const mistyped = key.slice(0, index) + replacement + key.slice(index + 1);
      expect(isWellFormedApiKey(mistyped), `changed at ${index}`).to.be.false;
    }
  });

  it('rejects wrong prefixes, lengths and characters', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey('')).to.be.false;
    expect(isWellFormedApiKey(`tiX_${key.slice(4)}`)).to.be.false;
    expect(isWellFormedApiKey(key.slice(0, -1))).to.be.false;
    expect(isWellFormedApiKey(`${key}0`)).to.be.false;
    expect(isWellFormedApiKey(`${key.slice(0, 10)}-${key.slice(11)}`)).to.be.false;
    expect(isWellFormedApiKey(` ${key.slice(1)}`)).to.be.false;
  });

  it('stores the SHA-256 hex of the whole value and shows its first 12 characters', () => {
    const key = generateApiKey(Buffer.alloc(32, 7));
    expect(hashApiKey(key)).to.equal(createHash('sha256').update(key).digest('hex')).and.to.have.length(64);
    expect(apiKeyDisplayPrefix(key)).to.equal(key.slice(0, 12));
    expect(apiKeyDisplayPrefix(key)).to.match(/^tix_[0-9A-Za-z]{8}$/);
  });
});
