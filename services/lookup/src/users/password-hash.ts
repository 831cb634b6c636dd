/**
 * Password hashing with node:crypto scrypt. Stored form: `scrypt$N$r$p$salt_b64$hash_b64`, so the
 * cost parameters travel with each hash and can be raised later without invalidating old ones.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Current cost parameters (OWASP's scrypt minimum: N=2^14, r=8, p=1 is the interactive-login tier). */
export const SCRYPT_PARAMETERS = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** Bounds for parameters read back from storage, so a corrupted row cannot make us allocate gigabytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

function derive(
  password: string,
  salt: Buffer,
  keyBytes: number,
  parameters: ScryptOptions,
): Promise<Buffer> {
  const maxmem =
    256 * (parameters.N ?? SCRYPT_PARAMETERS.N) * (parameters.r ?? SCRYPT_PARAMETERS.r) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, { ...parameters, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes `password` with a fresh 16-byte salt; the result is what users.password_hash stores. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = SCRYPT_PARAMETERS;
  const key = await derive(password, salt, KEY_BYTES, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/**
 * True when `password` matches `stored` (compared in constant time). False for a wrong password and
 * for anything that is not a well-formed hash of ours; never throws for bad input.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const validN = Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!validN || !Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) {
    return false;
  }
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (salt.length === 0 || expected.length < 16) return false;
  const actual = await derive(password, salt, expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password, made once per process. Verifying against it costs the same as
 * verifying a real user's password, so unknown emails take as long as wrong passwords.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64'));
  return dummyHash;
}
