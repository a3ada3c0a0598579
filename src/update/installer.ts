/**
 * Installs a system bundle (docs/updates.md "Installing"), the one code path of `vigil update install`,
 * POST /api/system/update and the System view:
 *   1. receive it into `<dataDir>/update/incoming.raucb` (streamed; bounded by size and free space);
 *   2. `rauc info`: signature, compatible string, version (older than the running one only when allowed);
 *   3. the payload's dm-verity tree recomputed (payload-check.ts): a corrupted byte is refused here;
 *   4. `rauc install` into the other slot, then the record (`pending`) for the gateway's monitor.
 * A refusal changes nothing: no slot is written and the incoming file is removed in every case. The
 * incoming file is created exclusively, so two installs at once (API and CLI) cannot interleave.
 */
import { closeSync, openSync, rmSync, statfsSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../core/errors.js';
import { UPDATE_COMPATIBLE } from './compatible.js';
import { checkVerityPayload } from './payload-check.js';
import { RaucError } from './rauc-client.js';
import { ensureUpdateDir, INCOMING_FILE, writeUpdateRecord } from './update-record.js';
import type { InstallRecord } from './update-record.js';
import type { UpdateSystem } from './update-system.js';
import { compareVersions, isVersion } from './versions.js';

export type UpdateRefusalCode =
  | 'UPDATE_UNAVAILABLE'
  | 'UPDATE_BUSY'
  | 'UNCONFIRMED'
  | 'NO_BUNDLE'
  | 'TOO_LARGE'
  | 'NO_SPACE'
  | 'UNSIGNED'
  | 'BAD_SIGNATURE'
  | 'BAD_BUNDLE'
  | 'CORRUPTED'
  | 'WRONG_COMPATIBLE'
  | 'OLDER'
  | 'INSTALL_FAILED';

export interface UpdateRefusal {
  readonly kind: 'refused';
  readonly code: UpdateRefusalCode;
  readonly message: string;
}

export interface Installed {
  readonly kind: 'installed';
  readonly record: InstallRecord;
}

export type InstallProgress =
  | { readonly stage: 'receiving'; readonly bytes: number }
  | { readonly stage: 'verifying' | 'installing' };

export interface InstallRequest {
  readonly body: AsyncIterable<Uint8Array> | null;
  readonly allowDowngrade: boolean;
  readonly onProgress?: (progress: InstallProgress) => void;
  /** Overrides of the bounds below (tests). */
  readonly limits?: { readonly maxBytes?: number; readonly reserveBytes?: number };
}

/** Larger than any system bundle (a slot is 1 GiB on the card). */
export const MAX_BUNDLE_BYTES = 4 * 1024 ** 3;
/** Free space a bundle leaves on the data partition for the journal while it waits to be installed. */
export const BUNDLE_FREE_RESERVE_BYTES = 256 * 1024 ** 2;
const SPACE_CHECK_EVERY_BYTES = 8 * 1024 ** 2;
/** An incoming file untouched this long is a leftover of a crash, not an install in progress. */
const STALE_INCOMING_MS = 60 * 60_000;

const refuse = (code: UpdateRefusalCode, message: string): UpdateRefusal => ({ kind: 'refused', code, message });

function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** Removes an incoming bundle a crash or power cut left behind (called at the gateway's start). */
export function removeIncomingLeftover(dataDir: string, now: number, always: boolean): boolean {
  const file = join(dataDir, 'update', INCOMING_FILE);
  try {
    if (!always && now - statSync(file).mtimeMs < STALE_INCOMING_MS) return false;
    rmSync(file);
    return true;
  } catch {
    return false;
  }
}

async function receive(
  body: AsyncIterable<Uint8Array>,
  fd: number,
  dir: string,
  limits: { maxBytes: number; reserveBytes: number },
  onProgress: InstallRequest['onProgress'],
): Promise<UpdateRefusal | { kind: 'ok'; size: number }> {
  let size = 0;
  let nextCheck = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limits.maxBytes) return refuse('TOO_LARGE', `the bundle is larger than ${limits.maxBytes} bytes`);
    if (size >= nextCheck) {
      // Room for the bytes until the next check, and the journal's reserve beyond them.
      if (freeBytes(dir) < SPACE_CHECK_EVERY_BYTES + limits.reserveBytes)
        return refuse('NO_SPACE', 'the bundle does not fit: the data partition has too little free space for it');
      nextCheck = size + SPACE_CHECK_EVERY_BYTES;
    }
    writeSync(fd, chunk);
    onProgress?.({ stage: 'receiving', bytes: size });
  }
  if (size === 0) return refuse('NO_BUNDLE', 'no bundle was sent');
  return { kind: 'ok', size };
}

/** rauc's words for a bundle it will not read, as a refusal code. */
function infoRefusal(err: RaucError): UpdateRefusal {
  const words = err.message;
  if (/signature size is 0|no signature|unsigned/i.test(words))
    return refuse('UNSIGNED', `the bundle is not signed (${words})`);
  if (
    /invalid bundle format|exceeds bundle size|too small|not a (squashfs|bundle)/i.test(words) &&
    !/size is 0/i.test(words)
  )
    return refuse('BAD_BUNDLE', `the file is truncated or not a system bundle (${words})`);
  if (/signature|verify error|certificate|CMS/i.test(words))
    return refuse('BAD_SIGNATURE', `the bundle is not signed by a key this box trusts (${words})`);
  return refuse('BAD_BUNDLE', `the file is truncated or not a system bundle (${words})`);
}

async function verify(
  system: UpdateSystem,
  file: string,
  allowDowngrade: boolean,
): Promise<UpdateRefusal | { kind: 'ok'; version: string }> {
  let info;
  try {
    info = await system.rauc.info(file);
  } catch (err) {
    if (err instanceof RaucError && err.failure === 'failed') return infoRefusal(err);
    throw err;
  }
  if (info.compatible !== UPDATE_COMPATIBLE)
    return refuse('WRONG_COMPATIBLE', `the bundle is for "${info.compatible}", this box is "${UPDATE_COMPATIBLE}"`);
  if (!isVersion(info.version)) return refuse('BAD_BUNDLE', `the bundle's version "${info.version}" is not a version`);
  if (!allowDowngrade && compareVersions(info.version, system.version) < 0)
    return refuse(
      'OLDER',
      `the bundle's version ${info.version} is older than the running ${system.version}; allow a downgrade to install it`,
    );
  // rauc install checks the payload too (dm-verity) and fails before switching slots; only the early,
  // slot-sparing refusal is lost.
  if (info.verityUnreadable)
    system.logger.warn('cannot read the verity facts of rauc info: payload checked by rauc install only');
  if (info.verity) {
    const verdict = await checkVerityPayload(file, info.verity);
    if (!verdict.ok) return refuse('CORRUPTED', verdict.reason);
  }
  return { kind: 'ok', version: info.version };
}

export async function installBundle(system: UpdateSystem, request: InstallRequest): Promise<UpdateRefusal | Installed> {
  const booted = system.bootedSlot();
  if (booted === null || (await system.raucStatus()) === null)
    return refuse('UPDATE_UNAVAILABLE', 'system updates are not available on this system (no A/B slots or no RAUC)');
  // Writing the other slot now would overwrite the last confirmed system: the only way back.
  if (system.onTrial())
    return refuse('UNCONFIRMED', `the running system (slot ${booted}) is not confirmed yet; install again once it is`);
  if (request.body === null) return refuse('NO_BUNDLE', 'no bundle was sent');
  const dir = ensureUpdateDir(system.dataDir);
  const file = join(dir, INCOMING_FILE);
  removeIncomingLeftover(system.dataDir, system.clock.now(), false);
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch {
    return refuse('UPDATE_BUSY', 'another update is being received or installed');
  }
  try {
    let received;
    try {
      received = await receive(
        request.body,
        fd,
        dir,
        {
          maxBytes: request.limits?.maxBytes ?? MAX_BUNDLE_BYTES,
          reserveBytes: request.limits?.reserveBytes ?? BUNDLE_FREE_RESERVE_BYTES,
        },
        request.onProgress,
      );
    } finally {
      closeSync(fd);
    }
    if (received.kind === 'refused') return received;
    request.onProgress?.({ stage: 'verifying' });
    const verified = await verify(system, file, request.allowDowngrade);
    if (verified.kind === 'refused') {
      system.logger.warn('update refused', { code: verified.code, reason: verified.message });
      return verified;
    }
    request.onProgress?.({ stage: 'installing' });
    try {
      await system.rauc.install(file);
    } catch (err) {
      system.logger.error('update install failed', { error: describeError(err) });
      const words = (err as Error).message;
      // The image's own version floor (root's side) refused it: the same refusal as the gateway's.
      if (/a downgrade needs root's permit/.test(words)) return refuse('OLDER', words.replace(/^.*vigil: /s, ''));
      return refuse('INSTALL_FAILED', `rauc could not install the bundle: ${words}`);
    }
    const record: InstallRecord = {
      from_version: system.version,
      to_version: verified.version,
      slot: booted === 'A' ? 'B' : 'A',
      installed_at: new Date(system.clock.now()).toISOString(),
      boot_id: system.bootId(),
      outcome: 'pending',
      reason: null,
      journaled: [],
      acknowledged_at: null,
    };
    writeUpdateRecord(system.dataDir, { install: record });
    system.logger.warn('update installed', { to_version: record.to_version, slot: record.slot });
    return { kind: 'installed', record };
  } finally {
    rmSync(file, { force: true });
  }
}
