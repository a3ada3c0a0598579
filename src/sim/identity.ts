/**
 * Who each simulated device is (account, UID) and the key it encrypts with. Pure.
 */
import { VigilError } from '../core/errors.js';
import { parseKey, receiverPasswordKey } from '../protocols/dc09/crypto.js';

/** base + index in upper-case hex, at least as many digits as the base (leading zeros kept). */
function offsetHex(base: string, index: number): string {
  const value = BigInt(`0x${base}`) + BigInt(index);
  return value.toString(16).toUpperCase().padStart(base.length, '0');
}

/** DC-09 account of device `index` (0-based): "001000" -> "001000", "001001", ... (3..16 hex digits). */
export function deviceAccount(accountBase: string, index: number): string {
  const account = offsetHex(accountBase, index);
  if (account.length > 16) throw new VigilError('INVALID_SETTINGS', 'account_base: too large for that many devices');
  return account;
}

/** Device-link UID of device `index` (6..32 hex digits). */
export function deviceUid(uidBase: string, index: number): string {
  const uid = offsetHex(uidBase, index);
  if (uid.length > 32) throw new VigilError('INVALID_SETTINGS', 'uid_base: too large for that many devices');
  return uid;
}

/**
 * The AES key from the text an installer types. Six characters are a receiver
 * encryption_password (contract: 6 or 16 characters), turned into a key the way the receiver
 * does (receiverPasswordKey); anything else is a key in the DC-09 sense (parseKey: 16/24/32
 * ASCII characters or 32/48/64 hex digits; 16 ASCII characters give the same key both ways).
 */
export function resolveSimKey(text: string): Buffer {
  if (text.length === 6) return receiverPasswordKey(text);
  return parseKey(text);
}
