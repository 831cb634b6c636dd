/**
 * Secrets at rest (webhook signing secrets, mailbox passwords and tokens). The service must sign with a subscription's secret, so it cannot hash it;
 * it seals it instead: with a key (WEBHOOK_SECRET_KEY, 32 bytes) a secret is stored as
 * `enc:v1:<base64 iv | tag | ciphertext>` (AES-256-GCM, a fresh 12-byte IV per secret); without a
 * key (development, tests) as `plain:<secret>`. Opening accepts both, so secrets stored before a key
 * was configured keep working; a sealed secret without the key cannot be opened (the attempt fails
 * and says so, nothing is sent unsigned).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEALED_PREFIX = 'enc:v1:';
const PLAIN_PREFIX = 'plain:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** True when secrets are encrypted (a key is configured). */
  readonly encrypts: boolean;
  /** The stored form of `secret`. */
  seal(secret: string): string;
  /** The secret a stored value holds; throws when it cannot be opened (wrong or missing key, damage). */
  open(stored: string): string;
}

/** A 32-byte key from base64 (44 characters) or hex (64 digits); null when it is neither. */
export function parseSecretKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) {
    const key = Buffer.from(value, 'base64');
    if (key.length === 32) return key;
  }
  return null;
}

/** A SecretBox sealing with `key` (AES-256-GCM), or storing plainly when `key` is null. */
export function createSecretBox(key: Buffer | null, keyVariable = 'WEBHOOK_SECRET_KEY'): SecretBox {
  if (key !== null && key.length !== 32) throw new Error('the secret key must be 32 bytes');
  return {
    encrypts: key !== null,
    seal(secret) {
      if (key === null) return `${PLAIN_PREFIX}${secret}`;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
    },
    open(stored) {
      if (stored.startsWith(PLAIN_PREFIX)) return stored.slice(PLAIN_PREFIX.length);
      if (!stored.startsWith(SEALED_PREFIX)) throw new Error('unknown signing secret format');
      if (key === null) throw new Error(`signing secret is encrypted and ${keyVariable} is not set`);
      const raw = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('damaged signing secret');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new Error(`signing secret cannot be decrypted with ${keyVariable}`);
      }
    },
  };
}
