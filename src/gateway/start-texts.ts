/** What the gateway tells when it starts: the first-start banner and the notes of `gateway_started`. */
import type { BackupHeader } from '../backup/backup-format.js';
import type { InitResult } from '../init/first-start.js';

/** What `gateway_started` tells beside the version (docs/internal-events.md). */
export function startNotes(previousRun: string | null, restored: BackupHeader | null): string | null {
  const notes = [];
  if (previousRun) notes.push(`previous run: ${previousRun}`);
  if (restored)
    notes.push(
      `restored from the backup of ${restored.instance_name || 'this box'} made ${restored.created_at} by version ${restored.app_version}`,
    );
  return notes.length > 0 ? notes.join('; ') : null;
}

export function firstStartBanner(result: Extract<InitResult, { initialised: true }>): string {
  if (result.password === null) {
    return [
      'Vigil: data dir initialised.',
      `  first account:  ${result.login}`,
      '  password:       as set in vigil-setup.txt',
      '',
    ].join('\n');
  }
  return [
    'Vigil: data dir initialised.',
    `  first account:  ${result.login}`,
    `  password:       ${result.password}`,
    `  (shown once; also stored in ${result.passwordFile}, mode 0600)`,
    '',
  ].join('\n');
}
