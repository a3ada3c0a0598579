/**
 * Password hashing with scrypt from node:crypto. Stored form:
 *   scrypt$N$r$p$<salt base64>$<hash base64>
 * Verification is constant-time and, for an unknown login, still spends one scrypt so that
 * response time does not reveal which logins exist.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const DEFAULT_COST = { N: 16384, r: 8, p: 1 } as const;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(
  password: string,
  cost: { N: number; r: number; p: number } = DEFAULT_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function isPasswordHash(value: string): boolean {
  return /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/.test(value);
}

// A fixed hash to verify against when the login is unknown (constant-time login).
const DUMMY_HASH = `scrypt$${DEFAULT_COST.N}$${DEFAULT_COST.r}$${DEFAULT_COST.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const target = stored !== undefined && isPasswordHash(stored) ? stored : DUMMY_HASH;
  const [, n, r, p, saltText, hashText] = target.split('$') as [string, string, string, string, string, string];
  const expected = Buffer.from(hashText, 'base64');
  const actual = await scrypt(password, Buffer.from(saltText, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  const same = expected.length === actual.length && timingSafeEqual(expected, actual);
  return same && target !== DUMMY_HASH;
}

/** A random password of URL-safe characters, for the first account and tests. */
export function randomPassword(length = 20): string {
  return randomBytes(length).toString('base64url').slice(0, length);
}
