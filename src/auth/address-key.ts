/**
 * The key a login throttle counts an address under (docs/security.md "Logins"). One IPv6 host
 * usually holds a whole /64 (SLAAC, privacy addresses) and can pick a fresh address for every
 * attempt, so IPv6 addresses are counted per /64 prefix; an IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`, what a dual-stack listener reports) is its IPv4 address. Anything else
 * (IPv4, `unknown`) is its own key.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The 8 groups of an IPv6 address as numbers, or null (a zone id is dropped: same host). */
function ipv6Groups(address: string): number[] | null {
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return null;
  // The WHATWG URL parser writes an IPv6 host in canonical hex form (a dotted tail becomes two groups).
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const [head, rest] = canonical.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const groups = rest === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : null;
}

export function throttleKey(address: string): string {
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
