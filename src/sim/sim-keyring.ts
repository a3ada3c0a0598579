/**
 * `vigil sim --device-keys FILE` (docs/simulator.md §Device keys): the simulated devices' link
 * keys as JSON, `{ "<UID>": "<64 hex digits>" }`. Read before the run so devices enrolled by an
 * earlier run prove their keys; written after the run (atomically, mode 0600: they are secrets)
 * with the keys enrolled meanwhile. A missing file is an empty keyring.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { VigilError } from '../core/errors.js';
import type { DeviceKeyring } from './link-handshake.js';

const UID_RE = /^[0-9A-F]{6,32}$/;
const KEY_RE = /^[0-9A-Fa-f]{64}$/;

export async function loadKeyring(path: string): Promise<DeviceKeyring> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VigilError('INVALID_SETTINGS', `${path}: not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new VigilError('INVALID_SETTINGS', `${path}: must be an object of UID -> key`);
  const keyring: DeviceKeyring = new Map();
  for (const [uid, key] of Object.entries(parsed)) {
    if (!UID_RE.test(uid.toUpperCase()) || typeof key !== 'string' || !KEY_RE.test(key)) {
      throw new VigilError(
        'INVALID_SETTINGS',
        `${path}: entry "${uid}" must be a UID of 6..32 hex digits and a key of 64 hex digits`,
      );
    }
    keyring.set(uid.toUpperCase(), Buffer.from(key, 'hex'));
  }
  return keyring;
}

export async function saveKeyring(path: string, keyring: DeviceKeyring): Promise<void> {
  const out: Record<string, string> = {};
  for (const [uid, key] of [...keyring].sort(([a], [b]) => a.localeCompare(b)))
    out[uid] = key.toString('hex').toUpperCase();
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(out, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  await rename(temp, path);
}
