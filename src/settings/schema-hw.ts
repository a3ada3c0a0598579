/**
 * The `hw` section (a Vigil extension; docs/settings.md §hw): the box's own hardware.
 * hw.leds: the three status LEDs (docs/leds.md). A pin is a BCM GPIO line of the 40-pin header
 * (0-27); null takes the line from the board's pin map (hw/boards/pin-maps.ts: 17, 27, 22 on every
 * supported board), so the default is declared once, with the board.
 */
import * as v from 'valibot';
import { bool, int, obj, optionalEntries } from './fields.js';

const ledPin = v.nullable(int(0, 27, 'must be a header GPIO line between 0 and 27, or null for the board default'));

export const hwLedsEntries = {
  enabled: v.optional(bool, true),
  power_pin: v.optional(ledPin, null),
  link_pin: v.optional(ledPin, null),
  trouble_pin: v.optional(ledPin, null),
  /** True when an LED lights with its line low (wired from 3.3 V through the LED to the pin). */
  active_low: v.optional(bool, false),
};

export const hwSchema = obj({ leds: v.optional(obj(hwLedsEntries), {}) });
export const hwUpdateSchema = obj({ leds: v.optional(obj(optionalEntries(hwLedsEntries))) });
