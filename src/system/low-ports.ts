/**
 * Ports below 1024 need CAP_NET_BIND_SERVICE, which the service unit grants only through the
 * opt-in drop-in systemd/vigil.service.d/low-ports.conf (docs/watchdog.md §Capabilities). This
 * names, at start and at every services restart, the configured ports that will fail to bind for
 * want of it, so the technician reads the fix instead of a bare EACCES.
 */
import { readFileSync } from 'node:fs';
import type { Settings } from '../settings/schema.js';
import { OUTPUT_TYPES } from '../settings/schema-outputs.js';
import { parseListenAddress } from '../settings/tcp-server-check.js';

/** capabilities(7): CAP_NET_BIND_SERVICE is capability number 10. */
const CAP_NET_BIND_SERVICE = 10n;

/** Where each listening port of the settings comes from, for the message. */
export function listeningPorts(
  settings: Settings,
  overrides: { http?: number; https?: number } = {},
): Array<{ port: number; what: string }> {
  const ports: Array<{ port: number; what: string }> = [
    { port: overrides.http ?? settings.api.api_http_port, what: 'api.api_http_port' },
    { port: overrides.https ?? settings.api.api_port, what: 'api.api_port' },
  ];
  if (settings.device_status_output.enabled)
    ports.push({ port: settings.device_status_output.port, what: 'device_status_output.port' });
  for (const [i, r] of settings.receivers.tcp_receivers.entries())
    ports.push({ port: r.port, what: `receivers.tcp_receivers[${i}].port` });
  for (const [i, r] of settings.receivers.udp_receivers.entries())
    ports.push({ port: r.port, what: `receivers.udp_receivers[${i}].port` });
  for (const [i, o] of settings.outputs.entries()) {
    const listen = o.type === OUTPUT_TYPES.tcp_server && o.enabled ? parseListenAddress(o.identificator) : null;
    if (listen) ports.push({ port: listen.port, what: `outputs[${i}].identificator` });
  }
  return ports.filter((p) => p.port > 0);
}

export interface PrivilegeFacts {
  /** The process's effective capability set (/proc/self/status CapEff). */
  readonly capEff: bigint;
  /** net.ipv4.ip_unprivileged_port_start: ports from here up need no capability. */
  readonly unprivilegedPortStart: number;
}

export function readPrivilegeFacts(proc = '/proc'): PrivilegeFacts | null {
  try {
    const status = readFileSync(`${proc}/self/status`, 'utf8');
    const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    const start = Number(readFileSync(`${proc}/sys/net/ipv4/ip_unprivileged_port_start`, 'utf8').trim());
    if (!capEff || !Number.isInteger(start)) return null;
    return { capEff: BigInt(`0x${capEff}`), unprivilegedPortStart: start };
  } catch {
    return null; // not Linux, or /proc hidden: nothing to say
  }
}

/** The ports that cannot bind with these privileges. */
export function portsNeedingCapability(
  ports: ReturnType<typeof listeningPorts>,
  facts: PrivilegeFacts,
): ReturnType<typeof listeningPorts> {
  if ((facts.capEff >> CAP_NET_BIND_SERVICE) & 1n) return [];
  return ports.filter((p) => p.port < facts.unprivilegedPortStart);
}
