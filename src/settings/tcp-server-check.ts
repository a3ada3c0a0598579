/**
 * Cross-field rules of TCP server outputs (type 5, docs/outputs.md §TCP server), run on the merged settings: the
 * identificator is the address to listen on, the allow-list holds addresses or CIDR blocks, and the port is not
 * already taken by a TCP receiver, the API or another server output (two listeners on one port fail at bind).
 */
import { isIP } from 'node:net';
import { duplicates, duplicateValues, line } from './issues.js';
import { parseHostPort } from './fields.js';
import { OUTPUT_TYPES, type OutputSettings } from './schema-outputs.js';
import type { Settings } from './schema.js';

/** Why an allow-list entry is not an IP address or CIDR block, or null when it is one. */
export function allowEntryProblem(entry: string): string | null {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return 'must be an IPv4 or IPv6 address or a CIDR block (e.g. 192.0.2.10 or 192.0.2.0/24)';
  if (slash < 0) return null;
  const prefix = entry.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `the prefix length must be 0..${max}`;
  return null;
}

/** The bind address and port of a type 5 output: an IP literal (a name would be resolved at bind time). */
export function parseListenAddress(identificator: string): { host: string; port: number } | null {
  const target = parseHostPort(identificator);
  return target && isIP(target.host) !== 0 ? target : null;
}

function checkOne(o: OutputSettings, at: string): string[] {
  const out: string[] = [];
  if (o.type !== OUTPUT_TYPES.tcp_server) {
    if (o.tcp_server !== undefined) out.push(line(`${at}.tcp_server`, 'only allowed when type is 5 (TCP server)'));
    return out;
  }
  if (parseListenAddress(o.identificator) === null) {
    out.push(
      line(
        `${at}.identificator`,
        'must be address:port to listen on (an IPv4 address or [IPv6 address], 0.0.0.0 for every interface; port 1..65535) for a TCP server output',
      ),
    );
  }
  if (o.serial !== undefined) out.push(line(`${at}.serial`, 'only allowed when type is 3 (serial COM)'));
  // cross-receivers.ts checks this block for MLR2; the JSON server has no use for it either.
  if (o.protocol === 'JSON' && o.sia_dc09 !== undefined)
    out.push(line(`${at}.sia_dc09`, 'only allowed when protocol is "SIA-DC09"'));
  const clients = o.tcp_server?.allowed_clients ?? [];
  clients.forEach((entry, j) => {
    const problem = allowEntryProblem(entry);
    if (problem !== null) out.push(line(`${at}.tcp_server.allowed_clients[${j}]`, problem));
  });
  out.push(...duplicateValues(clients, `${at}.tcp_server.allowed_clients`, 'address'));
  return out;
}

export function checkTcpServerOutputs(s: Settings): string[] {
  const out = s.outputs.flatMap((o, i) => checkOne(o, `outputs[${i}]`));
  // One TCP port, one listener: receivers, the API, the device status output and server outputs share the port
  // space (all addresses).
  const ports = [
    ...s.receivers.tcp_receivers.map((r, i) => ({
      key: r.port,
      path: `receivers.tcp_receivers[${i}]`,
      at: `receivers.tcp_receivers[${i}].port`,
    })),
    { key: s.api.api_port, path: 'api.api_port', at: 'api.api_port' },
    { key: s.api.api_http_port, path: 'api.api_http_port', at: 'api.api_http_port' },
    ...(s.device_status_output.enabled
      ? [{ key: s.device_status_output.port, path: 'device_status_output.port', at: 'device_status_output.port' }]
      : []),
  ];
  const receiverEntries = ports.length;
  s.outputs.forEach((o, i) => {
    const target = o.type === OUTPUT_TYPES.tcp_server ? parseListenAddress(o.identificator) : null;
    if (target) ports.push({ key: target.port, path: `outputs[${i}]`, at: `outputs[${i}].identificator` });
  });
  // Only collisions that involve an output are reported here (receivers and the API are checked in cross-receivers).
  out.push(
    ...duplicates(ports, 'port already in use').filter((msg) =>
      ports.slice(receiverEntries).some((p) => msg.startsWith(`${p.at}:`)),
    ),
  );
  return out;
}
