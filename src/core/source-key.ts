/**
 * The "source" every per-source limit counts under: the IP receivers' connection and datagram limits
 * (docs/receivers.md §Per-source limits) and the login throttle (docs/security.md "Logins"): an IPv4 address as is, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack
 * socket reports) as its IPv4 address, any other IPv6 address by its /64. One subscriber gets a whole
 * /64 (RFC 6177, RFC 7381), so counting single IPv6 addresses would let one host take 2^64 sources.
 * Pure; called once per accepted connection and once per UDP datagram, so IPv4 costs one `includes`.
 */

/** The per-source key of a numeric address as a socket reports it. */
export function sourceKey(address: string): string {
  if (!address.includes(':')) return address;
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && lower.includes('.')) return lower.slice(7);
  return ipv6Prefix64(lower);
}

/** "2001:db8:1:2::/64" for any address in 2001:db8:1:2::/64 (zone index dropped, groups without leading zeros). */
function ipv6Prefix64(address: string): string {
  const zone = address.indexOf('%');
  const bare = zone >= 0 ? address.slice(0, zone) : address;
  const gap = bare.indexOf('::');
  let groups: string[];
  if (gap < 0) {
    groups = bare.split(':');
  } else {
    const head = gap > 0 ? bare.slice(0, gap).split(':') : [];
    const tailText = bare.slice(gap + 2);
    const tail = tailText ? tailText.split(':') : [];
    // A dotted IPv4 tail stands for two groups.
    const tailGroups = tail.length + (tail.length > 0 && tail[tail.length - 1]!.includes('.') ? 1 : 0);
    const missing = Math.max(0, 8 - head.length - tailGroups);
    groups = [...head, ...new Array<string>(missing).fill('0'), ...tail];
  }
  const prefix = groups.slice(0, 4).map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16).toString(16) : '0'));
  while (prefix.length < 4) prefix.push('0');
  return `${prefix.join(':')}::/64`;
}

/** The source key of a stored "ip:port" / "[v6]:port" remote address (objects.remote_address), null when it is not one. */
export function sourceKeyOfRemote(remote: string | null): string | null {
  if (!remote) return null;
  if (remote.startsWith('[')) {
    const end = remote.indexOf(']');
    return end > 1 ? sourceKey(remote.slice(1, end)) : null;
  }
  const colon = remote.lastIndexOf(':');
  const host = colon > 0 ? remote.slice(0, colon) : remote;
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : null;
}
