/**
 * The one file of src/ that imports hw/ (docs/architecture.md §Layers): the serial port layer and the
 * GPIO status LEDs, as the gateway and the CLI see them.
 */
import { openStatusLeds } from '../../hw/leds/status-leds.js';
import { listSerialPorts, serialLineFactory } from '../../hw/serial/index.js';
import { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { SerialLineFactory, SerialPortInfo } from '../core/serial.js';
import type { LampsOpened } from '../leds/lamp.js';
import type { HwLedsSettings } from '../settings/schema.js';

/** The gateway's serial lines (docs/serial.md): every line is a `serial:<path>` component of `health`. */
export function gatewaySerialLines(health: HealthRegistry, logger: Logger): SerialLineFactory {
  return serialLineFactory({ health, logger });
}

/** Serial lines for a tool outside the gateway (`vigil sim --serial`), with a health registry of their own. */
export function standaloneSerialLines(logger: Logger): SerialLineFactory {
  return serialLineFactory({ health: new HealthRegistry(), logger });
}

/** The serial devices on the box (docs/serial.md §Discovery), each with the settings that use it. */
export function discoverSerialPorts(configured: ReadonlyMap<string, readonly string[]>): Promise<SerialPortInfo[]> {
  return listSerialPorts(configured);
}

/** The hardware layer's GPIO LEDs (hw/), as the LED service sees them. */
export async function openLamps(settings: HwLedsSettings, sysfsRoot: string | undefined): Promise<LampsOpened> {
  if (!settings.enabled) return { lamps: null, reason: 'turned off in the settings (hw.leds.enabled)' };
  const opened = await openStatusLeds({
    ...(sysfsRoot !== undefined && { sysfsRoot }),
    lines: { power: settings.power_pin, link: settings.link_pin, trouble: settings.trouble_pin },
    activeLow: settings.active_low,
  });
  if (!opened.lamps) return opened;
  const { board, chip, lines, numbers } = opened;
  const description =
    `${board.name}, ${chip.label} base ${chip.base}: power GPIO ${lines.power} (${numbers.power}), ` +
    `link GPIO ${lines.link} (${numbers.link}), trouble GPIO ${lines.trouble} (${numbers.trouble})`;
  return { lamps: opened.lamps, description };
}
