/**
 * The status LEDs as the gateway sees them (docs/leds.md). The GPIO driver in hw/ implements these;
 * only src/main.ts connects the two, and tests use in-memory lamps where no GPIO exists.
 */
export interface Lamp {
  /** Lights or darkens the LED; throws when the hardware refuses. */
  set(on: boolean): void;
}

export type LampName = 'power' | 'link' | 'trouble';
export const LAMP_NAMES: readonly LampName[] = ['power', 'link', 'trouble'];

export interface StatusLamps {
  readonly power: Lamp;
  readonly link: Lamp;
  readonly trouble: Lamp;
  /** Darkens and releases the LEDs (GPIO unexport). */
  close(): void;
}

/** What the hardware layer found: the lamps and a line describing them, or why there are none. */
export type LampsOpened =
  | { readonly lamps: StatusLamps; readonly description: string }
  | { readonly lamps: null; readonly reason: string };
