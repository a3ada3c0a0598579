/**
 * gpiochip discovery over sysfs. Current kernels number sysfs GPIOs from a per-chip base (512 on a
 * Pi 4 with 6.x kernels, 571 on a Pi 5 with 6.6): a raw BCM number fails with EINVAL, so the
 * number is always the header controller's base plus the BCM line, read here, never hard-coded
 * (platform notes §GPIO). The sysfs root is a parameter: tests use a temporary directory laid out
 * like /sys (class/gpio/gpiochipN/{label,base,ngpio}, export, unexport).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HEADER_CHIP_LABELS } from '../boards/pin-maps.js';

export const SYSFS_ROOT = '/sys';

export interface GpioChip {
  readonly label: string;
  /** The sysfs number of the chip's line 0. */
  readonly base: number;
  /** Lines the chip has. */
  readonly ngpio: number;
}

/** <root>/class/gpio: where export, unexport, gpiochipN/ and gpioN/ live. */
export function gpioClassDir(sysfsRoot: string): string {
  return join(sysfsRoot, 'class', 'gpio');
}

function readTrimmed(path: string): string {
  return readFileSync(path, 'utf8').trim();
}

function readInt(path: string): number {
  const text = readTrimmed(path);
  if (!/^\d+$/.test(text)) throw new Error(`${path}: "${text}" is not a number`);
  return Number(text);
}

/** Every gpiochip sysfs shows; [] when there is no GPIO class at all (a development PC, a kernel without sysfs GPIO). */
export function listGpioChips(sysfsRoot: string): GpioChip[] {
  const dir = gpioClassDir(sysfsRoot);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^gpiochip\d+$/.test(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.map((name) => ({
    label: readTrimmed(join(dir, name, 'label')),
    base: readInt(join(dir, name, 'base')),
    ngpio: readInt(join(dir, name, 'ngpio')),
  }));
}

/**
 * The 40-pin header's controller (pinctrl-bcm2711, pinctrl-bcm2835 or pinctrl-rp1), or null. Other
 * chips (the Pi 4's firmware GPIO expander, the Pi 5's brcmstb chips) are never taken for it.
 */
export function findHeaderChip(chips: readonly GpioChip[]): GpioChip | null {
  for (const label of HEADER_CHIP_LABELS) {
    const chip = chips.find((c) => c.label === label);
    if (chip) return chip;
  }
  return null;
}

/** The sysfs number of a BCM line on the chip; throws when the chip has no such line. */
export function sysfsNumber(chip: GpioChip, line: number): number {
  if (!Number.isInteger(line) || line < 0 || line >= chip.ngpio) {
    throw new Error(`GPIO ${line} is not a line of ${chip.label} (lines 0-${chip.ngpio - 1})`);
  }
  return chip.base + line;
}
