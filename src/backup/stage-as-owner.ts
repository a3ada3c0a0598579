/**
 * A restore staged by root (first boot, or `vigil restore` run as root) is staged by a child process
 * running as the data dir's owner (docs/security.md "Threat model", first boot). The data dir belongs
 * to the service user: whoever controls the gateway can rename and plant entries there at any moment,
 * so every path root opened or chowned under it could be a symlink to /etc by the time root used it.
 * The child can do there only what the service user can; root only reads the backup file (on the
 * boot partition, which the service user cannot read) and streams it to the child's stdin.
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { VigilError, type ErrorCode } from '../core/errors.js';
import type { BackupHeader } from './backup-format.js';

export interface StageRequest {
  readonly dataDir: string;
  readonly passphrase: string;
  readonly newIdentity: boolean;
}

/** What the child prints on stdout: the staged backup's header, or why it was refused. */
export type StageReply =
  | { readonly ok: true; readonly header: BackupHeader }
  | { readonly ok: false; readonly code: ErrorCode | null; readonly message: string };

const CHILD = new URL('./stage-child.js', import.meta.url);

/** Stages `file` into `request.dataDir` as `owner`; resolves with the header or rejects with the child's error. */
export async function stageAsOwner(
  file: string,
  request: StageRequest,
  owner: { readonly uid: number; readonly gid: number },
): Promise<BackupHeader> {
  const child = spawn(process.execPath, [CHILD.pathname], {
    uid: owner.uid,
    gid: owner.gid,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['pipe', 'pipe', 'inherit', 'pipe'],
  });
  const options = child.stdio[3] as NodeJS.WritableStream;
  options.end(`${JSON.stringify(request)}\n`);
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => (out += text));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  // The child may refuse before it has read everything (a wrong passphrase): a closed pipe is no failure here.
  await pipeline(createReadStream(file), child.stdin!).catch(() => undefined);
  const code = await exited;
  let reply: StageReply;
  try {
    reply = JSON.parse(out) as StageReply;
  } catch {
    throw new VigilError('BAD_BACKUP', `the restore could not be staged (the staging process ended with ${code})`);
  }
  if (reply.ok) return reply.header;
  throw reply.code ? new VigilError(reply.code, reply.message) : new Error(reply.message);
}
