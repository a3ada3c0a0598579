/**
 * `vigil backup` and `vigil restore` on the box (docs/backup.md). The passphrase comes from
 * `--passphrase-file` (its first line), `VIGIL_BACKUP_PASSPHRASE`, or a prompt on the terminal that
 * does not echo; never from the command line, where `ps` would show it.
 */
import { createWriteStream, readFileSync, renameSync } from 'node:fs';
import { readVersion } from '../version.js';
import { writeBackup } from './create-backup.js';
import { stageRestore } from './stage-restore.js';

export interface BackupCommand {
  readonly dataDir: string;
  readonly out: string;
  readonly journal: boolean;
  readonly passphraseFile?: string;
}

export interface RestoreCommand {
  readonly dataDir: string;
  readonly file: string;
  readonly newIdentity: boolean;
  readonly passphraseFile?: string;
}

/** Reads a line from the terminal without echoing it. */
function prompt(question: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY)
    return Promise.reject(
      new Error('no passphrase: use --passphrase-file or VIGIL_BACKUP_PASSPHRASE (stdin is not a terminal)'),
    );
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          done();
          resolve(typed);
          return;
        }
        if (char === '\u0003') {
          done();
          reject(new Error('cancelled'));
          return;
        }
        typed = char === '\u007f' ? typed.slice(0, -1) : typed + char;
      }
    };
    const done = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
    };
    input.on('data', onData);
  });
}

async function passphrase(file: string | undefined, confirm: boolean): Promise<string> {
  if (file !== undefined) return (readFileSync(file, 'utf8').split('\n')[0] ?? '').replace(/\r$/, '');
  const fromEnv = process.env.VIGIL_BACKUP_PASSPHRASE;
  if (fromEnv) return fromEnv;
  const first = await prompt('backup passphrase: ');
  if (confirm && (await prompt('the same passphrase again: ')) !== first) throw new Error('the passphrases differ');
  return first;
}

export async function runBackup(command: BackupCommand): Promise<string> {
  const secret = await passphrase(command.passphraseFile, true);
  // Written beside its final name and renamed: an interrupted backup never looks like a whole one.
  const partial = `${command.out}.partial`;
  const header = await writeBackup(
    {
      dataDir: command.dataDir,
      passphrase: secret,
      journal: command.journal,
      appVersion: readVersion(),
      now: Date.now(),
    },
    createWriteStream(partial, { mode: 0o600 }),
  );
  renameSync(partial, command.out);
  return `backup of ${header.instance_name || 'this box'} (version ${header.app_version}, ${header.journal ? 'with' : 'without'} the journal) written to ${command.out}`;
}

export async function runRestore(command: RestoreCommand): Promise<string> {
  const secret = await passphrase(command.passphraseFile, false);
  const header = await stageRestore({
    dataDir: command.dataDir,
    file: command.file,
    passphrase: secret,
    newIdentity: command.newIdentity,
  });
  return (
    `backup of ${header.instance_name || 'a box'} made ${header.created_at} by version ${header.app_version} checked and staged; ` +
    'it replaces the store at the next start of the gateway (on the box: systemctl restart vigil)'
  );
}
