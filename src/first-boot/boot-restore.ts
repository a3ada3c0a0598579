/**
 * A backup placed on the boot partition beside vigil-setup.txt, restored before the gateway's first start
 * (docs/first-boot.md "Restoring a backup", docs/backup.md): the one `*.vbk` file there, opened with
 * `restore_passphrase` from the setup file, checked whole and staged by the same stageRestore as
 * `vigil restore`; the gateway applies the staged restore when it starts. A wrong passphrase or a damaged
 * file is refused with the backup code's words and nothing is staged.
 */
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isVigilError } from '../core/errors.js';
import type { BackupHeader } from '../backup/backup-format.js';
import { stageRestore } from '../backup/stage-restore.js';
import type { SetupLineError } from './setup-file.js';

export const BACKUP_EXTENSION = '.vbk';

export type BootRestore =
  | { readonly kind: 'none' }
  | { readonly kind: 'staged'; readonly file: string; readonly header: BackupHeader }
  | { readonly kind: 'refused'; readonly errors: readonly SetupLineError[] };

/** The backup files on the boot partition: regular files ending in .vbk (any case). */
export function findBootBackups(bootDir: string): string[] {
  return readdirSync(bootDir)
    .filter((name) => name.toLowerCase().endsWith(BACKUP_EXTENSION))
    .filter((name) => lstatSync(join(bootDir, name)).isFile())
    .sort();
}

const refused = (message: string): BootRestore => ({ kind: 'refused', errors: [{ line: 0, message }] });

export async function stageBootRestore(
  bootDir: string,
  dataDir: string,
  passphrase: string | null,
): Promise<BootRestore> {
  const files = findBootBackups(bootDir);
  if (files.length === 0) {
    return passphrase === null
      ? { kind: 'none' }
      : refused(`restore_passphrase: no backup file (*${BACKUP_EXTENSION}) beside the setup file`);
  }
  if (files.length > 1)
    return refused(`restore: more than one backup file on the boot partition (${files.join(', ')}); leave one`);
  const name = files[0]!;
  if (passphrase === null)
    return refused(`restore: ${name} needs its passphrase as restore_passphrase in the setup file`);
  const file = join(bootDir, name);
  try {
    const header = await stageRestore({ dataDir, file, passphrase, newIdentity: false });
    return { kind: 'staged', file, header };
  } catch (err) {
    if (isVigilError(err, 'BAD_PASSPHRASE') || isVigilError(err, 'BAD_BACKUP'))
      return refused(`restore: ${name}: ${err.message}; nothing was restored`);
    throw err;
  }
}

/** After a staged restore the backup file goes: the box holds its data now. */
export function removeBootBackup(file: string): void {
  rmSync(file, { force: true });
}
