/**
 * What the boot loader knows (docs/updates.md "States"), read without side effects:
 *   - the booted slot, from `rauc.slot=A|B` on the kernel command line (/proc/cmdline);
 *   - the boot state the U-Boot script and RAUC's custom backend share on the boot partition
 *     (`/boot/firmware/vigil-boot.env`, root's only), as the backend publishes it for the gateway at every
 *     boot and every change (`/run/vigil-boot/state.env`, docs/image.md "Slots and boot"): `name=value` lines
 *     BOOT_ORDER ("B A"), BOOT_A_LEFT / BOOT_B_LEFT (tries left), BOOT_A_TRIAL / BOOT_B_TRIAL (1: installed,
 *     not yet confirmed).
 * A missing or unreadable file is "unknown", never an error: a box without A/B slots has neither.
 */
import { readFileSync } from 'node:fs';

export type SlotName = 'A' | 'B';
export const SLOT_NAMES: readonly SlotName[] = ['A', 'B'];

export interface BootState {
  /** Slots in the order the boot loader tries them; empty when the file does not say. */
  readonly order: readonly SlotName[];
  readonly triesLeft: Readonly<Record<SlotName, number | null>>;
  readonly trial: Readonly<Record<SlotName, boolean>>;
}

export const DEFAULT_CMDLINE_PATH = '/proc/cmdline';
export const DEFAULT_BOOT_ENV_PATH = '/run/vigil-boot/state.env';

function isSlot(value: string): value is SlotName {
  return value === 'A' || value === 'B';
}

/** `rauc.slot=A` or `rauc.slot=B` among the kernel's arguments; null otherwise. */
export function parseBootedSlot(cmdline: string): SlotName | null {
  for (const arg of cmdline.trim().split(/\s+/)) {
    if (arg.startsWith('rauc.slot=')) {
      const value = arg.slice('rauc.slot='.length);
      return isSlot(value) ? value : null;
    }
  }
  return null;
}

function count(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,3}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/**
 * Parses the boot state text. Unknown names, blank lines, comments and the end marker are skipped;
 * U-Boot's `env export -t` may end the text with NUL bytes, which are dropped too.
 */
export function parseBootEnv(text: string): BootState {
  const values = new Map<string, string>();
  for (const raw of text.replace(/\0/g, '').split(/\r?\n/)) {
    const line = raw.trim();
    const eq = line.indexOf('=');
    if (line === '' || line.startsWith('#') || eq <= 0) continue;
    values.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const order = (values.get('BOOT_ORDER') ?? '').split(/\s+/).filter(isSlot);
  return {
    order: [...new Set(order)],
    triesLeft: { A: count(values.get('BOOT_A_LEFT')), B: count(values.get('BOOT_B_LEFT')) },
    trial: { A: values.get('BOOT_A_TRIAL') === '1', B: values.get('BOOT_B_TRIAL') === '1' },
  };
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return null;
  }
}

export function readBootedSlot(cmdlinePath: string): SlotName | null {
  const text = readText(cmdlinePath);
  return text === null ? null : parseBootedSlot(text);
}

/** The boot state, or null when the file is missing or unreadable. */
export function readBootState(bootEnvPath: string): BootState | null {
  const text = readText(bootEnvPath);
  return text === null ? null : parseBootEnv(text);
}
