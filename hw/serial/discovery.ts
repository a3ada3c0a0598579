/**
 * Serial ports on the box without udev (SerialPort.list() shells out to udevadm and rejects where
 * udev is absent, platform notes): the stable /dev/serial/by-id names, the device nodes ttyUSB*,
 * ttyACM*, ttyAMA*, ttyS*, and every path the settings name. One entry per device node, its by-id
 * names attached, so an installer can pick a `port_id` that survives re-plugging (docs/serial.md).
 */
import { readFile, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { SerialPortInfo } from '../../src/core/serial.js';

export interface DiscoveryRoots {
  /** Where the device nodes live (tests point it at a directory laid out like /dev). */
  readonly dev: string;
  /** /sys/class/tty, to skip ttyS* ports that have no UART behind them. */
  readonly sysTty: string;
}

const DEFAULT_ROOTS: DiscoveryRoots = { dev: '/dev', sysTty: '/sys/class/tty' };
const DEVICE_NAME = /^tty(USB|ACM|AMA|S)\d+$/;

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function resolved(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/** An 8250 ttyS node the kernel creates for a UART that is not there reports type 0 (PORT_UNKNOWN). */
async function uartAbsent(sysTty: string, name: string): Promise<boolean> {
  if (!name.startsWith('ttyS')) return false;
  try {
    return (await readFile(join(sysTty, name, 'type'), 'utf8')).trim() === '0';
  } catch {
    return false;
  }
}

interface Entry {
  port_id: string;
  device: string | null;
  by_id: string[];
  source: SerialPortInfo['source'];
  used_by: string[];
}

/** `configured`: each path the settings name and who names it (`receivers.com_receivers[0]`). */
export async function listSerialPorts(
  configured: ReadonlyMap<string, readonly string[]> = new Map(),
  roots: DiscoveryRoots = DEFAULT_ROOTS,
): Promise<SerialPortInfo[]> {
  const byDevice = new Map<string, Entry>();
  const byIdDir = join(roots.dev, 'serial', 'by-id');
  for (const name of await list(byIdDir)) {
    const link = join(byIdDir, name);
    const device = await resolved(link);
    if (!device) continue;
    const entry = byDevice.get(device);
    if (entry) entry.by_id.push(link);
    else byDevice.set(device, { port_id: link, device, by_id: [link], source: 'by-id', used_by: [] });
  }
  for (const name of await list(roots.dev)) {
    if (!DEVICE_NAME.test(name) || (await uartAbsent(roots.sysTty, name))) continue;
    const device = (await resolved(join(roots.dev, name))) ?? join(roots.dev, name);
    if (!byDevice.has(device))
      byDevice.set(device, { port_id: device, device, by_id: [], source: 'device', used_by: [] });
  }
  const missing: Entry[] = [];
  for (const [path, users] of configured) {
    const device = await resolved(path);
    const entry = device ? byDevice.get(device) : undefined;
    if (entry) entry.used_by.push(...users);
    else if (device)
      byDevice.set(device, { port_id: path, device, by_id: [], source: 'configured', used_by: [...users] });
    else missing.push({ port_id: path, device: null, by_id: [], source: 'configured', used_by: [...users] });
  }
  return [...byDevice.values(), ...missing];
}
