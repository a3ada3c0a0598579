/**
 * The gateway cannot reboot the box itself (it runs as `vigil`, without privileges). It writes one JSON
 * line `{"reason":..,"at":..}` to `<dataDir>/system/reboot-request`; a root path unit of the image
 * (vigil-reboot.path) sees the file, removes it and reboots (docs/updates.md "Reboot").
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';

export const REBOOT_REQUEST_DIR = 'system';
export const REBOOT_REQUEST_FILE = 'reboot-request';

export function rebootRequestPath(dataDir: string): string {
  return join(dataDir, REBOOT_REQUEST_DIR, REBOOT_REQUEST_FILE);
}

export function writeRebootRequest(dataDir: string, reason: string, at: number): void {
  mkdirSync(join(dataDir, REBOOT_REQUEST_DIR), { recursive: true, mode: 0o755 });
  const line = `${JSON.stringify({ reason, at: new Date(at).toISOString() })}\n`;
  writeFileAtomic(rebootRequestPath(dataDir), line, 0o644);
}
