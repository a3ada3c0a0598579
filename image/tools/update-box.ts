/**
 * What update-check does to the booted box: read its slot state, install a bundle through the API, ask
 * for a reboot the way the gateway does (docs/image.md "Reboot on request"), send DC-09 events and read
 * the journal.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { buildMessage } from '../../src/protocols/dc09/encoder.js';
import { type Guest, poll, sendFrame } from './guest.js';

export interface SlotState {
  readonly booted: string;
  readonly bootId: string;
  readonly version: string;
  /** BOOT_ORDER, BOOT_A_LEFT, ... as published in /run/vigil-boot/state.env. */
  readonly boot: Readonly<Record<string, string>>;
}

export async function slotState(guest: Guest): Promise<SlotState> {
  const out = await guest.ssh(
    'tr " " "\\n" < /proc/cmdline | sed -n "s/^rauc.slot=//p"; cat /proc/sys/kernel/random/boot_id; vigil version; cat /run/vigil-boot/state.env',
  );
  const [booted = '', bootId = '', version = '', ...rest] = out.split('\n');
  const boot: Record<string, string> = {};
  for (const line of rest) {
    const at = line.indexOf('=');
    if (at > 0) boot[line.slice(0, at)] = line.slice(at + 1);
  }
  return { booted, bootId, version, boot };
}

export function describe(s: SlotState): string {
  return `slot ${s.booted}, version ${s.version}, order ${s.boot.BOOT_ORDER}, A ${s.boot.BOOT_A_LEFT}/${s.boot.BOOT_A_TRIAL} B ${s.boot.BOOT_B_LEFT}/${s.boot.BOOT_B_TRIAL} (tries left/trial)`;
}

export interface InstallResult {
  readonly ok: boolean;
  readonly output: string;
  readonly seconds: number;
}

/** Installs a bundle as a technician does: POST /api/system/update, the bundle as the streamed body. */
export async function install(guest: Guest, bundle: string, token: string): Promise<InstallResult> {
  const started = Date.now();
  const res = await guest.upload('/api/system/update', bundle, token);
  return { ok: res.status === 200, output: `${res.status} ${res.text}`, seconds: (Date.now() - started) / 1000 };
}

/** Asks for a reboot as the System view does (POST /api/system/reboot), waits for the box to go down. */
export async function requestReboot(guest: Guest, token: string, before: string): Promise<void> {
  const res = await guest.http('POST', '/api/system/reboot', { token });
  if (res.status !== 200) throw new Error(`POST /api/system/reboot: ${res.status} ${res.text}`);
  await poll('the box went down', 180_000, async () => {
    const id = await guest.ssh('cat /proc/sys/kernel/random/boot_id', 15_000).catch(() => 'down');
    return id !== before;
  });
}

/** Two copies of `bundle`: one with a 4 KiB block of its payload overwritten with noise, one unsigned. */
export function badBundles(bundle: string, dir: string): { corrupted: string; unsigned: string } {
  const corrupted = join(dir, 'corrupted.raucb');
  copyFileSync(bundle, corrupted);
  const blocks = Math.floor(statSync(corrupted).size / 4096);
  const fd = openSync(corrupted, 'r+');
  try {
    writeSync(fd, randomBytes(4096), 0, 4096, Math.floor(blocks / 2) * 4096);
  } finally {
    closeSync(fd);
  }
  // The same bundle without its CMS signature: RAUC's trailer (the signature's size, 8 bytes big-endian)
  // follows the signature, so the file keeps the image and says "signature size 0".
  const unsigned = join(dir, 'unsigned.raucb');
  const bytes = readFileSync(bundle);
  const signatureSize = Number(bytes.readBigUInt64BE(bytes.length - 8));
  writeFileSync(unsigned, Buffer.concat([bytes.subarray(0, bytes.length - 8 - signatureSize), Buffer.alloc(8)]));
  return { corrupted, unsigned };
}

/** RAUC's install progress (percentage and message) over D-Bus, or null when no install runs. */
export async function raucProgress(guest: Guest): Promise<{ percent: number; message: string } | null> {
  const out = await guest.ssh(
    'busctl get-property de.pengutronix.rauc / de.pengutronix.rauc.Installer Progress 2>/dev/null || true',
  );
  const m = /\(isi\) (\d+) "([^"]*)"/.exec(out);
  return m ? { percent: Number(m[1]), message: m[2]! } : null;
}

let sequence = 1;
/**
 * One DC-09 event for `account` (SIA `code`: BA, a burglary alarm, by default; RP, an automatic test
 * report, is no alarm: the update channel's quiet period does not wait for it); true when it was ACKed.
 */
export async function sendEvent(rxPort: number, account: string, timeoutMs?: number, code = 'BA'): Promise<boolean> {
  const frame = buildMessage({
    token: 'SIA-DCS',
    sequence: sequence++ % 10000,
    receiver: 1,
    line: 1,
    account,
    data: `#${account}|Nri1/${code}0${sequence % 10}`,
    timestamp: Date.now(),
  });
  return (await sendFrame(rxPort, frame, timeoutMs)).includes('"ACK"');
}

export async function eventsFor(guest: Guest, token: string, account: string): Promise<number> {
  const res = await guest.http('GET', '/api/events?limit=500', { token });
  if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${res.text}`);
  const { items } = JSON.parse(res.text) as { items: { account: string }[] };
  return items.filter((e) => e.account === account).length;
}

/** The newest gateway (internal) events' texts, e.g. `System update rolled back (the box booted …)`. */
export async function internalEvents(guest: Guest, token: string): Promise<string[]> {
  const res = await guest.http('GET', '/api/events?limit=500', { token });
  if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${res.text}`);
  const { items } = JSON.parse(res.text) as { items: { protocol: string; text: string | null }[] };
  return items.filter((e) => e.protocol === 'INTERNAL').map((e) => e.text ?? '');
}
