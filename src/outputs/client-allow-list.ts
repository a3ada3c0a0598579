/**
 * Which automation clients may connect to a TCP server output (type 5, docs/outputs.md §TCP server): the
 * `tcp_server.allowed_clients` entries, each an IPv4/IPv6 address or a CIDR block. An empty list admits loopback
 * only (127.0.0.0/8, ::1), so a server output never accepts a stranger by default (docs/security.md §Threat model).
 * An IPv4 client seen as an IPv4-mapped IPv6 address (::ffff:a.b.c.d, a socket bound to ::) is matched as IPv4.
 */
import { BlockList, isIP } from 'node:net';
import { allowEntryProblem } from '../settings/tcp-server-check.js';

const LOOPBACK = ['127.0.0.0/8', '::1'];

export class ClientAllowList {
  private readonly list = new BlockList();
  /** For logs and health details. */
  readonly description: string;

  /** Entries are validated by the settings (allowEntryProblem); an invalid one is left out, never widened. */
  constructor(entries: readonly string[]) {
    const effective = entries.length === 0 ? LOOPBACK : entries;
    this.description = entries.length === 0 ? 'loopback only' : entries.join(', ');
    for (const entry of effective) {
      if (allowEntryProblem(entry) !== null) continue;
      const [address = '', prefix] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(address, type);
      else this.list.addSubnet(address, Number(prefix), type);
    }
  }

  allows(remoteAddress: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
    const address = mapped ? mapped[1]! : remoteAddress;
    const family = isIP(address);
    if (family === 0) return false;
    return this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}
