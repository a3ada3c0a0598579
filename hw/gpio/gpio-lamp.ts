/**
 * One status LED on a sysfs GPIO line, driven through onoff. The line is exported here and
 * awaited asynchronously (udev gives the vigil group its files a moment after export:
 * hw/udev/99-vigil.rules), so onoff finds it exported and never busy-waits the event loop; then
 * onoff sets active_low and the direction, which is read back: onoff ignores a failed direction
 * write on a line that was already exported, and an LED that silently stays an input is a lie.
 */
import { constants } from 'node:fs';
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Gpio } from 'onoff';
import type { Lamp } from '../../src/leds/lamp.js';
import type { GpioClass } from './onoff-loader.js';

const EXPORT_WAIT_MS = 2000;
const EXPORT_POLL_MS = 10;

export interface GpioLampOptions {
  /** <sysfs root>/class/gpio */
  readonly classDir: string;
  /** The sysfs number (chip base + BCM line). */
  readonly number: number;
  /** True when the LED lights with the line low (wired from 3.3 V to the pin). */
  readonly activeLow: boolean;
  readonly Gpio: GpioClass;
  readonly exportWaitMs?: number;
}

async function usable(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Exports the line unless it is already, and waits until its value and direction files are ours. */
async function exportLine(options: GpioLampOptions): Promise<void> {
  const lineDir = join(options.classDir, `gpio${options.number}`);
  const ready = async () => (await usable(join(lineDir, 'value'))) && (await usable(join(lineDir, 'direction')));
  if (await ready()) return;
  await writeFile(join(options.classDir, 'export'), String(options.number));
  const deadline = Date.now() + (options.exportWaitMs ?? EXPORT_WAIT_MS);
  while (!(await ready())) {
    if (Date.now() > deadline)
      throw new Error(
        `gpio${options.number} did not become writable within ${options.exportWaitMs ?? EXPORT_WAIT_MS} ms of export`,
      );
    await new Promise((resolve) => setTimeout(resolve, EXPORT_POLL_MS));
  }
}

export class GpioLamp implements Lamp {
  readonly number: number;
  private readonly gpio: Gpio;
  private lit: boolean | null = null;

  private constructor(number: number, gpio: Gpio) {
    this.number = number;
    this.gpio = gpio;
  }

  static async open(options: GpioLampOptions): Promise<GpioLamp> {
    await exportLine(options);
    const gpio = new options.Gpio(options.number, 'out', 'none', { activeLow: options.activeLow });
    const direction = gpio.direction();
    if (direction !== 'out') {
      gpio.unexport();
      throw new Error(`gpio${options.number} stayed "${direction}" after setting it to "out"`);
    }
    const lamp = new GpioLamp(options.number, gpio);
    lamp.set(false);
    return lamp;
  }

  /** Writes only on a change: the blink loop calls this every tick. */
  set(on: boolean): void {
    if (this.lit === on) return;
    this.gpio.writeSync(on ? 1 : 0);
    this.lit = on;
  }

  /** Dark, then unexported (an LED left lit by a stopped gateway would tell a technician it runs). */
  close(): void {
    try {
      this.gpio.writeSync(0);
    } finally {
      this.gpio.unexport();
    }
  }
}
