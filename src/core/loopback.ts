/**
 * Is a peer the box itself? Loopback is the only network a plain-text service may trust: the page and
 * API over plain HTTP (src/api/plain-http-gate.ts) and an unencrypted device status output
 * (src/status-output/status-output.ts) serve loopback peers only unless told otherwise.
 */
import { isIPv4, isIPv6 } from 'node:net';

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  if (isIPv4(address)) return address.startsWith('127.');
  if (!isIPv6(address)) return false;
  const lower = address.toLowerCase();
  return lower === '::1' || /^::ffff:127\.\d+\.\d+\.\d+$/.test(lower);
}
