/**
 * One install from the update channel (docs/updates.md "The update channel"): RAUC streams the bundle
 * from its URL into the other slot (no copy on the data partition; an adaptive bundle fetches only the
 * blocks the slots lack), with the same guards as an upload — one install at a time (the upload's
 * incoming file is the lock), never while the running slot is itself on trial — and the same record.
 * RAUC refuses an unsigned, foreign, truncated or unreachable bundle before it writes anything; the
 * image's install handler refuses an older one (docs/image.md "Who may install").
 */
import { chmodSync, closeSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../core/errors.js';
import { readPem } from '../settings/pem-check.js';
import { RaucError } from './rauc-client.js';
import { ensureUpdateDir, INCOMING_FILE, writeUpdateRecord, type InstallRecord } from './update-record.js';
import type { UpdateSystem } from './update-system.js';

export type ChannelInstallCode = 'UPDATE_UNAVAILABLE' | 'UPDATE_BUSY' | 'UNCONFIRMED' | 'CA_FILE' | 'INSTALL_FAILED';

export type ChannelInstallResult =
  | { readonly ok: true; readonly record: InstallRecord; readonly seconds: number }
  | { readonly ok: false; readonly code: ChannelInstallCode; readonly message: string };

export interface ChannelInstallRequest {
  readonly url: string;
  /** The version the manifest announced; the record takes RAUC's own account when it has one. */
  readonly version: string;
  /** updates.ca_file, or '' for the public CAs. */
  readonly caFile: string;
  /** Where RAUC's streaming helper (not user vigil) can read the CA: the unit's runtime directory. */
  readonly runtimeDir: string;
  readonly onProgress?: (percent: number, step: string) => void;
}

const fail = (code: ChannelInstallCode, message: string): ChannelInstallResult => ({ ok: false, code, message });

/** The CA copied where RAUC's helper can read it (the data dir is the gateway's alone). */
async function handOverCa(caFile: string, runtimeDir: string): Promise<string | { error: string }> {
  const read = await readPem(caFile);
  if (!read.ok) return { error: `updates.ca_file ${read.reason}` };
  const path = join(runtimeDir, 'channel-ca.pem');
  try {
    writeFileSync(path, read.text, { mode: 0o644 });
    chmodSync(path, 0o644);
  } catch (err) {
    return { error: `cannot hand the CA file to RAUC in ${runtimeDir}: ${describeError(err)}` };
  }
  return path;
}

export async function installFromChannel(
  system: UpdateSystem,
  request: ChannelInstallRequest,
): Promise<ChannelInstallResult> {
  const booted = system.bootedSlot();
  if (booted === null || (await system.raucStatus()) === null)
    return fail('UPDATE_UNAVAILABLE', 'system updates are not available on this system (no A/B slots or no RAUC)');
  if (system.onTrial())
    return fail('UNCONFIRMED', `the running system (slot ${booted}) is not confirmed yet; installing waits for it`);
  let tlsCa: string | undefined;
  if (request.caFile !== '') {
    const handed = await handOverCa(request.caFile, request.runtimeDir);
    if (typeof handed !== 'string') return fail('CA_FILE', handed.error);
    tlsCa = handed;
  }
  const lock = join(ensureUpdateDir(system.dataDir), INCOMING_FILE);
  let fd: number;
  try {
    // The upload path's incoming file, empty: one install at a time, whichever way it comes.
    fd = openSync(lock, 'wx', 0o600);
  } catch {
    return fail('UPDATE_BUSY', 'another update is being received or installed');
  }
  closeSync(fd);
  const started = system.clock.now();
  try {
    await system.rauc.installUrl(request.url, {
      ...(tlsCa ? { tlsCa } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    });
  } catch (err) {
    const words = err instanceof RaucError ? err.message : describeError(err);
    system.logger.error('update from the channel failed', { url: request.url, error: words });
    return fail('INSTALL_FAILED', `rauc could not install the bundle: ${words}`);
  } finally {
    rmSync(lock, { force: true });
  }
  const slot = booted === 'A' ? 'B' : 'A';
  // RAUC's record of what it wrote: the bundle's own version, should the manifest have said otherwise.
  const written = (await system.raucStatus())?.slots.find((s) => s.bootname === slot)?.version ?? request.version;
  const record: InstallRecord = {
    from_version: system.version,
    to_version: written,
    slot,
    installed_at: new Date(system.clock.now()).toISOString(),
    boot_id: system.bootId(),
    outcome: 'pending',
    reason: null,
    journaled: [],
    acknowledged_at: null,
  };
  writeUpdateRecord(system.dataDir, { install: record });
  system.logger.warn('update installed from the channel', { to_version: written, slot, url: request.url });
  return { ok: true, record, seconds: (system.clock.now() - started) / 1000 };
}
