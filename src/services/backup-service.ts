/**
 * Backup download and restore upload for the API (GET /api/system/backup, POST /api/system/restore) and
 * the page's System view, one function each (docs/backup.md "API", "Page"). Scope `system_update`.
 * A download streams writeBackup (src/backup/create-backup.ts) straight into the answer; an upload is
 * streamed into a temporary file in the data dir, bounded in size and in the free space it may take,
 * then checked whole by stageRestore: nothing is staged unless every byte is right.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import { describeError, isVigilError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { writeBackup } from '../backup/create-backup.js';
import { checkPassphrase } from '../backup/backup-format.js';
import { UPLOAD_PREFIX, stageRestore } from '../backup/stage-restore.js';
import { FORBIDDEN, mayUpdateSystem, type Forbidden, type Principal } from './principal.js';
import { headerFacts, type BackupFacts } from './system-service.js';

/** The largest backup an upload may be (a store with years of journal stays well below). */
export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
/** Free space an upload leaves for the journal, beyond what staging the restore will take again. */
export const UPLOAD_FREE_RESERVE_BYTES = 256 * 1024 ** 2;
const SPACE_CHECK_EVERY_BYTES = 8 * 1024 ** 2;

export interface BackupServiceDeps {
  readonly version: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly system: { readonly dataDir: string };
  /** Overrides for tests of the bounds; the defaults above otherwise. */
  readonly limits?: { readonly maxBytes?: number; readonly reserveBytes?: number };
}

export type Refusal = {
  readonly kind: 'refused';
  readonly code: 'BAD_PASSPHRASE' | 'BAD_BACKUP' | 'TOO_LARGE' | 'NO_SPACE';
  readonly message: string;
};

export type DownloadOutcome =
  | Forbidden
  | Refusal
  | { readonly kind: 'ok'; readonly fileName: string; readonly body: Readable };

export type RestoreOutcome =
  | Forbidden
  | Refusal
  | { readonly kind: 'ok'; readonly backup: BackupFacts; readonly newIdentity: boolean };

/** `vigil-<instance>-<UTC date>.vbk`, with only characters every file system and header takes. */
export function backupFileName(instanceName: string, now: number): string {
  const name =
    instanceName
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 64) || 'box';
  return `vigil-${name}-${new Date(now).toISOString().slice(0, 10)}.vbk`;
}

/**
 * A sink for writeBackup that feeds `out`, honours its back-pressure and fails when `out` goes away (the
 * caller hung up), so writeBackup stops and removes its snapshot. A failed backup destroys `out` with an
 * error: the caller sees a cut transfer, never a clean end of a half file.
 */
function sinkInto(out: PassThrough, started: () => void): Writable {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      started();
      if (out.destroyed) return done(new Error('the download was cancelled'));
      if (out.write(chunk)) return done();
      const settle = () => {
        out.off('drain', settle);
        out.off('close', settle);
        done(out.destroyed ? new Error('the download was cancelled') : null);
      };
      out.on('drain', settle);
      out.on('close', settle);
    },
    final(done) {
      out.end();
      done();
    },
    destroy(err, done) {
      if (!out.writableEnded) out.destroy(err ?? new Error('the backup stopped'));
      done(err);
    },
  });
  return sink;
}

/**
 * Starts a backup and answers once its first bytes exist, so a backup that cannot be made at all (the
 * store unreadable, no room for the snapshot) throws here and the edge answers its server failure
 * instead of a 200 with an empty file.
 */
export async function downloadBackup(
  deps: BackupServiceDeps,
  principal: Principal,
  request: { readonly passphrase: string; readonly journal: boolean; readonly instanceName: string },
): Promise<DownloadOutcome> {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  try {
    checkPassphrase(request.passphrase);
  } catch (err) {
    return { kind: 'refused', code: 'BAD_PASSPHRASE', message: (err as Error).message };
  }
  const now = deps.clock.now();
  const out = new PassThrough();
  // The failure is logged below and reaches the reader through its own listener; without this one, a
  // backup failing before any reader exists would be an unhandled 'error' event, which ends the process.
  out.on('error', () => undefined);
  deps.logger.warn('backup download', { by: principal.subject, journal: request.journal });
  let started!: () => void;
  const firstBytes = new Promise<void>((resolve) => (started = resolve));
  const writing = writeBackup(
    {
      dataDir: deps.system.dataDir,
      passphrase: request.passphrase,
      journal: request.journal,
      appVersion: deps.version,
      now,
    },
    sinkInto(out, started),
  );
  writing.then(
    (header) => deps.logger.info('backup downloaded', { by: principal.subject, instance_id: header.instance_id }),
    (err: unknown) => deps.logger.error('backup download failed', { by: principal.subject, error: describeError(err) }),
  );
  // Rejects when the backup fails before its first byte; the rejection is logged above as well.
  await Promise.race([firstBytes, writing]);
  return { kind: 'ok', fileName: backupFileName(request.instanceName, now), body: out };
}

function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** Streams `body` into `file`, refusing past maxBytes or when the data dir would keep less than reserveBytes. */
async function receive(
  body: AsyncIterable<Uint8Array>,
  dir: string,
  file: string,
  maxBytes: number,
  reserveBytes: number,
): Promise<Refusal | { kind: 'ok'; size: number }> {
  const fd = openSync(file, 'wx', 0o600);
  let size = 0;
  let nextCheck = 0;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > maxBytes)
        return { kind: 'refused', code: 'TOO_LARGE', message: `the backup file is larger than ${maxBytes} bytes` };
      if (size >= nextCheck) {
        // Staging writes the content once more: keep that, and the journal's reserve, free.
        if (freeBytes(dir) < size + reserveBytes) {
          return {
            kind: 'refused',
            code: 'NO_SPACE',
            message: 'the data partition has too little free space to receive and stage this backup',
          };
        }
        nextCheck = size + SPACE_CHECK_EVERY_BYTES;
      }
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  if (size === 0) return { kind: 'refused', code: 'BAD_BACKUP', message: 'no backup file was sent' };
  return { kind: 'ok', size };
}

/**
 * Removes uploads a crash or power cut left half-received; only the gateway makes them, and this runs at
 * its start, before anything could be uploading. Returns their names.
 */
export function removeUploadLeftovers(dataDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return []; // no data dir yet: nothing was ever uploaded
  }
  const left = names.filter((name) => name.startsWith(UPLOAD_PREFIX));
  for (const name of left) rmSync(join(dataDir, name), { force: true });
  return left;
}

export async function restoreUpload(
  deps: BackupServiceDeps,
  principal: Principal,
  request: {
    readonly body: AsyncIterable<Uint8Array> | null;
    readonly passphrase: string;
    readonly newIdentity: boolean;
  },
): Promise<RestoreOutcome> {
  if (!mayUpdateSystem(principal)) return FORBIDDEN;
  // Every backup's passphrase has the minimum length: a shorter one is wrong before a byte is read.
  try {
    checkPassphrase(request.passphrase);
  } catch (err) {
    return { kind: 'refused', code: 'BAD_PASSPHRASE', message: (err as Error).message };
  }
  if (request.body === null) return { kind: 'refused', code: 'BAD_BACKUP', message: 'no backup file was sent' };
  const { dataDir } = deps.system;
  const file = join(dataDir, `${UPLOAD_PREFIX}${randomUUID()}`);
  try {
    const received = await receive(
      request.body,
      dataDir,
      file,
      deps.limits?.maxBytes ?? MAX_UPLOAD_BYTES,
      deps.limits?.reserveBytes ?? UPLOAD_FREE_RESERVE_BYTES,
    );
    if (received.kind === 'refused') return received;
    const header = await stageRestore({
      dataDir,
      file,
      passphrase: request.passphrase,
      newIdentity: request.newIdentity,
    });
    deps.logger.warn('restore staged', {
      by: principal.subject,
      instance_id: header.instance_id,
      created_at: header.created_at,
      new_identity: request.newIdentity,
    });
    return { kind: 'ok', backup: headerFacts(header), newIdentity: request.newIdentity };
  } catch (err) {
    if (isVigilError(err, 'BAD_PASSPHRASE') || isVigilError(err, 'BAD_BACKUP')) {
      const code = err.code === 'BAD_PASSPHRASE' ? 'BAD_PASSPHRASE' : 'BAD_BACKUP';
      deps.logger.warn('restore refused', { by: principal.subject, code, reason: err.message });
      return { kind: 'refused', code, message: err.message };
    }
    throw err;
  } finally {
    rmSync(file, { force: true });
  }
}
