/**
 * The API key format, GitHub-style: `tix_` + base62 of 32 random bytes (43 characters, zero-padded)
 * + a 6-character base62 CRC32 of everything before it. The checksum lets us (and secret scanners)
 * reject mistyped or made-up keys offline, before any database lookup. Only the SHA-256 of a key is
 * stored: a fast hash is right for 256-bit random secrets.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'tix_';
const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BYTES = 32;
/** ceil(256 / log2(62)) = 43 characters hold any 32-byte value. */
const SECRET_CHARS = 43;
const CHECKSUM_CHARS = 6;
/** Total length of a key value. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + SECRET_CHARS + CHECKSUM_CHARS;
/** How many leading characters are stored and shown to recognise a key ("tix_" + 8). */
export const DISPLAY_PREFIX_LENGTH = 12;

const KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_CHARS + CHECKSUM_CHARS}}$`);

/** `value` in base62, left-padded with "0" to `width` characters; throws if it does not fit. */
export function encodeBase62(value: bigint, width: number): string {
  let rest = value;
  let digits = '';
  while (rest > 0n) {
    digits = BASE62_ALPHABET[Number(rest % 62n)]! + digits;
    rest /= 62n;
  }
  if (digits.length > width)
    throw new RangeError(`value needs ${digits.length} base62 digits, more than ${width}`);
  return digits.padStart(width, '0');
}

/** The 6-character base62 CRC32 (IEEE) of `body` (the key without its checksum). */
export function apiKeyChecksum(body: string): string {
  return encodeBase62(BigInt(crc32(body)), CHECKSUM_CHARS);
}

/** A new key value from 32 random bytes (or the given ones, for tests). */
export function generateApiKey(secret: Buffer = randomBytes(SECRET_BYTES)): string {
  if (secret.length !== SECRET_BYTES) throw new RangeError(`an API key secret is ${SECRET_BYTES} bytes`);
  const body = API_KEY_PREFIX + encodeBase62(BigInt(`0x${secret.toString('hex')}`), SECRET_CHARS);
  return body + apiKeyChecksum(body);
}

/** True when `value` has the key shape and a correct checksum (no I/O). */
export function isWellFormedApiKey(value: string): boolean {
  if (value.length !== API_KEY_LENGTH || !KEY_SHAPE.test(value)) return false;
  const body = value.slice(0, -CHECKSUM_CHARS);
  return apiKeyChecksum(body) === value.slice(-CHECKSUM_CHARS);
}

/** What is stored for a key: the SHA-256 of its value, lowercase hex. */
export function hashApiKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The displayable start of a key (not enough to use it). */
export function apiKeyDisplayPrefix(value: string): string {
  return value.slice(0, DISPLAY_PREFIX_LENGTH);
}
