/**
 * The system files a setup file turns into, rendered as text (pure). Paths are relative to the target
 * root. The image ships the defaults rendered from the same functions (image/overlay, checked by a test).
 */
import { pbkdf2Sync } from 'node:crypto';
import type { SetupConfig, WiredNetwork } from './setup-file.js';

const HEADER = '# Managed by `vigil first-boot` from vigil-setup.txt (docs/first-boot.md).\n';

export const DEFAULT_HOSTNAME = 'vigil';
export const DEFAULT_TIMEZONE = 'Etc/UTC';

export const PATHS = {
  hostname: 'etc/hostname',
  hosts: 'etc/hosts',
  localtime: 'etc/localtime',
  timezone: 'etc/timezone',
  wired: 'etc/systemd/network/20-vigil-wired.network',
  wifi: 'etc/systemd/network/30-vigil-wifi.network',
  wpa: 'etc/wpa_supplicant/wpa_supplicant-wlan0.conf',
  wpaWants: 'etc/systemd/system/multi-user.target.wants/wpa_supplicant@wlan0.service',
  wpaUnit: '/usr/lib/systemd/system/wpa_supplicant@.service',
  ntp: 'etc/systemd/timesyncd.conf.d/50-vigil.conf',
  authorizedKeys: 'root/.ssh/authorized_keys',
  sshWants: 'etc/systemd/system/multi-user.target.wants/ssh.service',
  sshUnit: '/usr/lib/systemd/system/ssh.service',
} as const;

export function renderHostname(hostname: string): string {
  return `${hostname}\n`;
}

export function renderHosts(hostname: string): string {
  return [
    '127.0.0.1\tlocalhost',
    `127.0.1.1\t${hostname}`,
    '::1\t\tlocalhost ip6-localhost ip6-loopback',
    'ff02::1\t\tip6-allnodes',
    'ff02::2\t\tip6-allrouters',
    '',
  ].join('\n');
}

/** systemd.network(5) for the wired port (eth0 with net.ifnames=0; en* on other kernels). */
export function renderWiredNetwork(network: WiredNetwork): string {
  const lines = [HEADER.trimEnd(), '[Match]', 'Name=eth* en*', '', '[Network]'];
  if (network.mode === 'dhcp') lines.push('DHCP=yes');
  else lines.push(`Address=${network.address}`, `Gateway=${network.gateway}`);
  for (const dns of network.dns) lines.push(`DNS=${dns}`);
  return lines.join('\n') + '\n';
}

export function renderWifiNetwork(): string {
  return [HEADER.trimEnd(), '[Match]', 'Name=wlan*', '', '[Network]', 'DHCP=yes', ''].join('\n');
}

/**
 * wpa_supplicant.conf(5). The SSID is written as hex (no quoting problems with any byte); the passphrase
 * is stored as its PSK only (IEEE 802.11i-2004 H.4: PBKDF2-SHA1, SSID as salt, 4096 rounds, 256 bits).
 */
export function renderWpaSupplicant(wifi: NonNullable<SetupConfig['wifi']>): string {
  const lines = [HEADER.trimEnd(), 'ctrl_interface=DIR=/run/wpa_supplicant', 'update_config=0'];
  if (wifi.country) lines.push(`country=${wifi.country}`);
  lines.push('network={', `\tssid=${Buffer.from(wifi.ssid, 'utf8').toString('hex')}`);
  if (wifi.passphrase === null) lines.push('\tkey_mgmt=NONE');
  else lines.push(`\tpsk=${wpaPsk(wifi.ssid, wifi.passphrase)}`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

export function wpaPsk(ssid: string, passphrase: string): string {
  if (/^[0-9a-fA-F]{64}$/.test(passphrase)) return passphrase.toLowerCase();
  return pbkdf2Sync(passphrase, Buffer.from(ssid, 'utf8'), 4096, 32, 'sha1').toString('hex');
}

/** timesyncd.conf(5) drop-in. */
export function renderNtp(servers: readonly string[]): string {
  return `${HEADER}[Time]\nNTP=${servers.join(' ')}\n`;
}

export function renderAuthorizedKeys(keys: readonly string[]): string {
  return keys.map((key) => key.trim()).join('\n') + '\n';
}
