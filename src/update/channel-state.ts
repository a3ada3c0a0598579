/**
 * What the update channel keeps across restarts and slot switches (docs/updates.md "The update
 * channel"), on the data partition beside the update record (`<dataDir>/update/channel.json`, written
 * atomically): the newest manifest serial the box accepted (replays are refused against it), the
 * failed install attempts of the version on offer, and the channel's last install — the box reboots into
 * it by itself, and the System view still tells what it installed, when and how long it took.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';
import type { AcceptedSerial } from './channel-manifest.js';
import { dataDirOwner, ensureUpdateDir, updateDir } from './update-record.js';

export const CHANNEL_FILE = 'channel.json';

export interface InstallAttempts {
  readonly version: string;
  readonly failures: number;
  readonly last_error: string;
  readonly last_at: string;
}

/** `GET /api/system` `channel.last_install`. */
export interface LastInstall {
  readonly version: string;
  readonly at: string;
  readonly seconds: number;
  /** `installed`, or the failure's `CODE: message`. */
  readonly result: string;
}

export interface ChannelState {
  readonly accepted: AcceptedSerial | null;
  readonly attempts: InstallAttempts | null;
  readonly last_install: LastInstall | null;
}

const EMPTY: ChannelState = { accepted: null, attempts: null, last_install: null };

function lastInstall(value: Partial<LastInstall> | null | undefined): LastInstall | null {
  if (!value) return null;
  const { version, at, seconds, result } = value;
  return typeof version === 'string' &&
    typeof at === 'string' &&
    typeof seconds === 'number' &&
    Number.isFinite(seconds) &&
    typeof result === 'string'
    ? { version, at, seconds, result }
    : null;
}

export function readChannelState(dataDir: string): ChannelState {
  try {
    const value = JSON.parse(readFileSync(join(updateDir(dataDir), CHANNEL_FILE), 'utf8')) as Partial<ChannelState>;
    const accepted =
      value.accepted && Number.isSafeInteger(value.accepted.serial) && typeof value.accepted.digest === 'string'
        ? { serial: value.accepted.serial, digest: value.accepted.digest }
        : null;
    const attempts =
      value.attempts && typeof value.attempts.version === 'string' && Number.isInteger(value.attempts.failures)
        ? value.attempts
        : null;
    return { accepted, attempts, last_install: lastInstall(value.last_install) };
  } catch {
    return EMPTY;
  }
}

export function writeChannelState(dataDir: string, state: ChannelState): void {
  const dir = ensureUpdateDir(dataDir);
  const owner = dataDirOwner(dataDir);
  writeFileAtomic(join(dir, CHANNEL_FILE), `${JSON.stringify(state)}\n`, 0o600, owner ? { owner } : {});
}
