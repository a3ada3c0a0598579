/**
 * The first account first boot provisions (docs/first-boot.md): written by root into the data dir
 * (src/first-boot/status.ts), consumed by the gateway's first start (first-start.ts), which removes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PROVISION_FILE = 'first-boot-admin.json';

export interface ProvisionedAdmin {
  readonly password_hash: string;
  readonly instance_name: string | null;
}

/** The provisioned first account, or null when there is none (or it is unusable: then the gateway generates one). */
export function readProvisionedAdmin(dataDir: string): ProvisionedAdmin | null {
  const path = join(dataDir, PROVISION_FILE);
  if (!existsSync(path)) return null;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<ProvisionedAdmin>;
    if (typeof value.password_hash !== 'string' || value.password_hash.length === 0) return null;
    return {
      password_hash: value.password_hash,
      instance_name: typeof value.instance_name === 'string' ? value.instance_name : null,
    };
  } catch {
    return null;
  }
}
