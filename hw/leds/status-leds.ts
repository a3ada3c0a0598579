/**
 * Opens the three status LEDs on the board's GPIO header (docs/leds.md): discovers the header's
 * gpiochip, takes the lines from the settings or, where they say null, from the board's pin map,
 * and opens one onoff-driven GpioLamp per LED. A board without GPIO (a development PC) is not an
 * error: the result is null and the caller runs without LEDs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LampName, StatusLamps } from '../../src/leds/lamp.js';
import { boardForChipLabel, boardForModel, type BoardPinMap, type LedLines } from '../boards/pin-maps.js';
import { GpioLamp } from '../gpio/gpio-lamp.js';
import {
  SYSFS_ROOT,
  findHeaderChip,
  gpioClassDir,
  listGpioChips,
  sysfsNumber,
  type GpioChip,
} from '../gpio/gpiochip.js';
import { loadGpioClass } from '../gpio/onoff-loader.js';

export interface StatusLedOptions {
  /** Default /sys; tests pass a temporary tree. */
  readonly sysfsRoot?: string;
  /** BCM lines from the settings (hw.leds); null takes the board map's line. */
  readonly lines: { readonly [K in LampName]: number | null };
  readonly activeLow: boolean;
  readonly exportWaitMs?: number;
}

export type StatusLedsOpened =
  | {
      readonly lamps: StatusLamps;
      readonly board: BoardPinMap;
      readonly chip: GpioChip;
      readonly lines: LedLines;
      readonly numbers: LedLines;
    }
  | { readonly lamps: null; readonly reason: string };

/** The device-tree model string ("Raspberry Pi 4 Model B Rev 1.4"), or '' when there is none. */
function readModel(sysfsRoot: string): string {
  try {
    return readFileSync(join(sysfsRoot, 'firmware', 'devicetree', 'base', 'model'), 'utf8')
      .replace(/\0/g, '')
      .trim();
  } catch {
    return '';
  }
}

export async function openStatusLeds(options: StatusLedOptions): Promise<StatusLedsOpened> {
  const root = options.sysfsRoot ?? SYSFS_ROOT;
  const classDir = gpioClassDir(root);
  const chip = findHeaderChip(listGpioChips(root));
  if (!chip) return { lamps: null, reason: `no Raspberry Pi GPIO controller under ${classDir}` };
  const board = boardForModel(readModel(root)) ?? boardForChipLabel(chip.label);
  if (!board) return { lamps: null, reason: `no pin map for ${chip.label}` };
  const lines: LedLines = {
    power: options.lines.power ?? board.leds.power,
    link: options.lines.link ?? board.leds.link,
    trouble: options.lines.trouble ?? board.leds.trouble,
  };
  for (const [a, b] of [
    ['power', 'link'],
    ['power', 'trouble'],
    ['link', 'trouble'],
  ] as const) {
    if (lines[a] === lines[b]) throw new Error(`the ${a} and ${b} LEDs are both on GPIO ${lines[a]} (hw.leds)`);
  }
  const numbers: LedLines = {
    power: sysfsNumber(chip, lines.power),
    link: sysfsNumber(chip, lines.link),
    trouble: sysfsNumber(chip, lines.trouble),
  };
  const Gpio = loadGpioClass(classDir);
  const opened: GpioLamp[] = [];
  try {
    for (const name of ['power', 'link', 'trouble'] as const) {
      opened.push(
        await GpioLamp.open({
          classDir,
          number: numbers[name],
          activeLow: options.activeLow,
          Gpio,
          ...(options.exportWaitMs !== undefined && { exportWaitMs: options.exportWaitMs }),
        }),
      );
    }
  } catch (err) {
    for (const lamp of opened) {
      try {
        lamp.close();
      } catch {
        // Already failing: the first error is the one worth reporting.
      }
    }
    throw err;
  }
  const [power, link, trouble] = opened as [GpioLamp, GpioLamp, GpioLamp];
  return {
    lamps: {
      power,
      link,
      trouble,
      close() {
        for (const lamp of opened) lamp.close();
      },
    },
    board,
    chip,
    lines,
    numbers,
  };
}
