/** Where a data dir keeps its SQLite file: one name for the gateway, the CLI, first boot and backups. */
import { join } from 'node:path';

/** The store's file name inside a data dir (and inside a staged restore's directory). */
export const STORE_FILE = 'vigil.db';

export function storePath(dir: string): string {
  return join(dir, STORE_FILE);
}
