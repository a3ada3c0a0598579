/**
 * The sockets an appliance listens on, from `ss -Htlnup` run on the booted image. The box listens on
 * nothing it does not need: image-check compares what is reachable from the LAN (every address but
 * loopback) with the documented list (docs/image.md "Listening sockets").
 */

export interface Listener {
  readonly protocol: 'tcp' | 'udp';
  readonly address: string;
  readonly port: number;
  /** The owning process as ss names it (`users:(("name",…))`, at most 15 characters), when shown. */
  readonly process?: string;
}

/**
 * systemd-timesyncd's reply socket: while an NTP request is pending it binds an unconnected UDP socket
 * to the wildcard address and an ephemeral port (timesyncd-manager.c manager_listen_setup), closed when
 * the answer comes (manager_listen_stop); it takes only the answer that carries its own transmit time
 * (RFC 5905 §8, the origin timestamp). A client's socket like DHCP's 68, not a service, so it is named
 * by its owner, not its port, which changes with every request.
 */
const NTP_CLIENT = 'systemd-timesyn';

/** Parses `ss -H -t -u -l -n` lines: `Netid State Recv-Q Send-Q Local:Port Peer:Port`. */
export function parseListeners(ssOutput: string): Listener[] {
  const found: Listener[] = [];
  for (const line of ssOutput.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5) continue;
    const [netid, , , , local] = fields as [string, string, string, string, string];
    if (netid !== 'tcp' && netid !== 'udp') continue;
    const colon = local.lastIndexOf(':');
    if (colon < 0) continue;
    // ss writes an interface scope as `addr%if` (after the brackets of an IPv6 address): both go.
    const address = local
      .slice(0, colon)
      .replace(/%[^\]]*$/, '')
      .replace(/^\[|\]$/g, '');
    const port = Number(local.slice(colon + 1));
    const process = /users:\(\("([^"]+)"/.exec(line)?.[1];
    if (Number.isInteger(port)) found.push({ protocol: netid, address, port, ...(process ? { process } : {}) });
  }
  return found;
}

export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address === 'localhost';
}

/** `tcp/22`-style names of the LAN-reachable listeners, sorted and without duplicates (IPv4 and IPv6 alike). */
export function lanListeners(listeners: readonly Listener[]): string[] {
  const names = new Set(
    listeners
      .filter((l) => !isLoopback(l.address))
      .map((l) => (l.protocol === 'udp' && l.process === NTP_CLIENT ? 'udp/ntp-client' : `${l.protocol}/${l.port}`)),
  );
  return [...names].sort();
}

/**
 * What the image may listen on from the LAN (docs/image.md "Listening sockets"): exactly SSH, the page
 * and API (HTTP and HTTPS) and the check's one DC-09 receiver over TCP; over UDP at most the DHCP
 * clients of systemd-networkd (68, 546) and the NTP client's reply socket while a request is pending. Returns what differs; empty when the box is as documented.
 */
export function listenerSurprises(lan: readonly string[], tcpPorts: readonly number[]): string[] {
  const expectedTcp = tcpPorts.map((p) => `tcp/${p}`);
  const allowedUdp = ['udp/68', 'udp/546', 'udp/ntp-client'];
  const unexpected = lan.filter((name) => !expectedTcp.includes(name) && !allowedUdp.includes(name));
  const missing = expectedTcp.filter((name) => !lan.includes(name));
  return [...unexpected.map((n) => `unexpected ${n}`), ...missing.map((n) => `missing ${n}`)];
}
