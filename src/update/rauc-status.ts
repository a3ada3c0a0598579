/**
 * Pure: `rauc status --detailed --output-format=json` to the slots Vigil reports (docs/updates.md
 * "GET /api/system"). Only slots with a boot name (A, B) are kept: those are the system slots.
 */
import type { SlotName } from './boot-state.js';

export interface RaucSlot {
  /** RAUC's slot name, e.g. `rootfs.0`. */
  readonly raucName: string;
  readonly bootname: SlotName;
  /** `booted`, `active` or `inactive` as RAUC says. */
  readonly state: string;
  /** `good` or `bad` as the boot backend says; null when it does not say. */
  readonly bootStatus: string | null;
  /** The version of the bundle last installed into it; null for the slot the card was flashed with. */
  readonly version: string | null;
  readonly installedAt: string | null;
}

export interface RaucStatus {
  readonly compatible: string;
  /** Boot name of the booted slot as RAUC sees it; null when unknown. */
  readonly booted: SlotName | null;
  /** Boot name of the slot the boot loader tries first; null when unknown. */
  readonly primary: SlotName | null;
  readonly slots: readonly RaucSlot[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const slotName = (value: unknown): SlotName | null => (value === 'A' || value === 'B' ? value : null);

export function isSlotStatusShape(value: unknown): value is Json {
  return isObject(value) && Array.isArray(value.slots);
}

export function parseRaucStatus(json: Json): RaucStatus {
  const slots: RaucSlot[] = [];
  for (const entry of json.slots as unknown[]) {
    if (!isObject(entry)) continue;
    for (const [raucName, value] of Object.entries(entry)) {
      if (!isObject(value)) continue;
      const bootname = slotName(value.bootname);
      if (!bootname) continue;
      const status = isObject(value.slot_status) ? value.slot_status : {};
      const bundle = isObject(status.bundle) ? status.bundle : {};
      const installed = isObject(status.installed) ? status.installed : {};
      slots.push({
        raucName,
        bootname,
        state: text(value.state) ?? 'unknown',
        bootStatus: text(value.boot_status),
        version: text(bundle.version),
        installedAt: text(installed.timestamp),
      });
    }
  }
  // `booted` is the boot name RAUC matched; `boot_primary` is a slot name.
  const primaryName = text(json.boot_primary);
  const primary = slots.find((s) => s.raucName === primaryName)?.bootname ?? null;
  const booted = slotName(json.booted) ?? slots.find((s) => s.state === 'booted')?.bootname ?? null;
  return { compatible: text(json.compatible) ?? '', booted, primary, slots };
}
