/**
 * `vigil ports`: the serial devices on this box and who uses them (docs/serial.md §Discovery), so an installer can
 * put a stable /dev/serial/by-id name into `port_id`. Reads the stored settings read-only when the data dir is
 * initialised (the gateway may be running beside it); works without one too.
 */
import { existsSync } from 'node:fs';
import type { CliCommand } from './cli-args.js';
import { silentLogger } from './core/logger.js';
import type { SerialPortInfo } from './core/serial.js';
import { discoverSerialPorts } from './gateway/hardware.js';
import { configuredSerialPorts } from './settings/serial-usage.js';
import { validateStoredSettings } from './settings/validate.js';
import { Store } from './store/store.js';
import { storePath } from './store/store-path.js';

async function configured(dataDir: string): Promise<Map<string, string[]>> {
  const dbPath = storePath(dataDir);
  if (!existsSync(dbPath)) return new Map();
  const store = new Store(dbPath, silentLogger, undefined, { readonly: true });
  await store.start();
  try {
    const raw = store.settings.load();
    const parsed = raw === null ? null : validateStoredSettings(raw);
    return parsed?.ok ? configuredSerialPorts(parsed.settings) : new Map();
  } finally {
    await store.stop();
  }
}

export function formatPorts(ports: readonly SerialPortInfo[]): string {
  if (ports.length === 0) return 'no serial ports found\n';
  const lines = ports.map((p) => {
    const device = p.device === null ? 'missing' : p.device === p.port_id ? '' : `-> ${p.device}`;
    const used = p.used_by.length > 0 ? `used by ${p.used_by.join(', ')}` : '';
    return [p.port_id, device, used].filter(Boolean).join('  ');
  });
  return `${lines.join('\n')}\n`;
}

export async function runPorts(command: Extract<CliCommand, { command: 'ports' }>): Promise<void> {
  const ports = await discoverSerialPorts(await configured(command.dataDir));
  process.stdout.write(command.json ? `${JSON.stringify({ ports })}\n` : formatPorts(ports));
}
