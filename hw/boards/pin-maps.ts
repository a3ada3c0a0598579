/**
 * Board descriptions: which gpiochip carries the 40-pin header's BCM lines, and where the status
 * LEDs go by default (docs/leds.md §Wiring). The header's BCM numbering is the same on every
 * supported board, so the LED lines are too; what differs is the GPIO controller (and so its
 * gpiochip label and sysfs base), found at run time by hw/gpio/gpiochip.ts.
 */
export type BoardId = 'pi3' | 'pi4' | 'cm4' | 'pi5';

export interface LedLines {
  /** BCM line numbers (not header pin numbers, not sysfs numbers). */
  readonly power: number;
  readonly link: number;
  readonly trouble: number;
}

export interface BoardPinMap {
  readonly id: BoardId;
  readonly name: string;
  /** Matched against /proc/device-tree/model ("Raspberry Pi 4 Model B Rev 1.4"). */
  readonly model: RegExp;
  /** gpiochip label of the header's controller (/sys/class/gpio/gpiochip*\/label). */
  readonly chipLabel: string;
  readonly leds: LedLines;
  /** Physical header pins of the LED lines, for the wiring table. */
  readonly ledHeaderPins: LedLines;
}

/** GPIO 17, 27, 22: header pins 11, 13, 15, next to each other and free of UART, I2C, SPI and PCM. */
const HEADER_LEDS: LedLines = { power: 17, link: 27, trouble: 22 };
const HEADER_LED_PINS: LedLines = { power: 11, link: 13, trouble: 15 };

export const BOARDS: readonly BoardPinMap[] = [
  {
    id: 'pi5',
    name: 'Raspberry Pi 5',
    model: /^Raspberry Pi 5\b/,
    chipLabel: 'pinctrl-rp1',
    leds: HEADER_LEDS,
    ledHeaderPins: HEADER_LED_PINS,
  },
  {
    id: 'cm4',
    name: 'Raspberry Pi Compute Module 4',
    model: /^Raspberry Pi Compute Module 4\b/,
    chipLabel: 'pinctrl-bcm2711',
    leds: HEADER_LEDS,
    ledHeaderPins: HEADER_LED_PINS,
  },
  {
    id: 'pi4',
    name: 'Raspberry Pi 4',
    model: /^Raspberry Pi (4|400)\b/,
    chipLabel: 'pinctrl-bcm2711',
    leds: HEADER_LEDS,
    ledHeaderPins: HEADER_LED_PINS,
  },
  {
    id: 'pi3',
    name: 'Raspberry Pi 3',
    model: /^Raspberry Pi 3\b/,
    chipLabel: 'pinctrl-bcm2835',
    leds: HEADER_LEDS,
    ledHeaderPins: HEADER_LED_PINS,
  },
];

/** The header controllers' gpiochip labels, in the order discovery prefers them. */
export const HEADER_CHIP_LABELS: readonly string[] = ['pinctrl-bcm2711', 'pinctrl-bcm2835', 'pinctrl-rp1'];

/** The board whose model string this is, or null (a development PC, an unknown board). */
export function boardForModel(model: string): BoardPinMap | null {
  const clean = model.replace(/\0/g, '').trim();
  return BOARDS.find((board) => board.model.test(clean)) ?? null;
}

/** A board map for the controller found, when the model is unknown (the lines are the same on every header). */
export function boardForChipLabel(label: string): BoardPinMap | null {
  return BOARDS.find((board) => board.chipLabel === label) ?? null;
}
