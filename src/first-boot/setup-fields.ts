/**
 * Field checks for vigil-setup.txt. Each returns null when the value is good, else a short problem
 * text for the result file (never the value itself: callers decide whether echoing it is safe).
 */
import { isIP } from 'node:net';

/** RFC 1123 §2.1 labels: letters, digits, inner hyphens, 1..63 characters; dotted names only when allowed. */
export function checkHostname(value: string, allowDots = false): string | null {
  const labels = value.split('.');
  if (!allowDots && labels.length > 1) return 'must be a single name without dots (letters, digits, hyphens)';
  if (value.length > 253) return 'is too long';
  const good = labels.every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label));
  return good ? null : 'must be letters, digits and inner hyphens, 1..63 characters per name';
}

export function checkIpv4Cidr(value: string): string | null {
  const match = /^(.+)\/(\d{1,2})$/.exec(value);
  if (!match || isIP(match[1]!) !== 4) return 'must be an IPv4 address with a prefix length, e.g. 192.168.1.50/24';
  const prefix = Number(match[2]);
  return prefix >= 8 && prefix <= 30 ? null : 'prefix length must be 8..30';
}

/** IEEE 802.11i: a passphrase is 8..63 printable ASCII characters, or the PSK itself as 64 hex digits. */
export function checkPassphrase(value: string): string | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return null;
  return /^[\x20-\x7e]{8,63}$/.test(value) ? null : 'must be 8..63 printable ASCII characters (or 64 hex digits)';
}

const KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
];

/**
 * One OpenSSH public key line (sshd(8) AUTHORIZED_KEYS FILE FORMAT, without options): type, base64 blob,
 * optional comment. The blob must decode and start with the same type string (RFC 4253 §6.6), which
 * catches keys cut short by copy and paste.
 */
export function checkAuthorizedKey(value: string): string | null {
  const [type, blob] = value.split(/\s+/);
  if (!type || !KEY_TYPES.includes(type))
    return `must start with a key type (${KEY_TYPES.slice(0, 5).join(', ')}, ...)`;
  if (!blob || !/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) return 'has no base64 key after the type';
  const bytes = Buffer.from(blob, 'base64');
  const nameLength = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1;
  const name =
    nameLength > 0 && nameLength + 4 <= bytes.length ? bytes.subarray(4, 4 + nameLength).toString('latin1') : '';
  if (name !== type) return 'the key is damaged (its data does not match its type; was it cut short?)';
  if (type === 'ssh-ed25519' && bytes.length !== 51) return 'the key is damaged (wrong length for ssh-ed25519)';
  return null;
}

/** "a, b c" -> ["a", "b", "c"]: commas and/or spaces separate list items. */
export function splitList(value: string): string[] {
  return value.split(/[\s,]+/).filter((item) => item.length > 0);
}
