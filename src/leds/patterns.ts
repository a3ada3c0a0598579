/**
 * What each status LED shows (docs/leds.md is the technician's table of these). A pattern is a
 * repeating sequence of lit and dark spans, starting lit; pure data, so tests and the docs table
 * read the same numbers the LEDs run.
 */
export interface BlinkPattern {
  readonly name: string;
  /** Durations in ms: lit, dark, lit, dark, ... repeating. [] = always dark; one span = always lit. */
  readonly spans: readonly number[];
}

export const DARK: BlinkPattern = { name: 'off', spans: [] };
export const STEADY: BlinkPattern = { name: 'steady', spans: [1] };
/** Power: the gateway is healthy (self-check passing): 1 s lit, 1 s dark. */
export const HEARTBEAT: BlinkPattern = { name: 'slow blink', spans: [1000, 1000] };
/** Link: receivers listening, no device connected: 4 blinks a second would read as trouble; 2 per second. */
export const WAITING: BlinkPattern = { name: 'fast blink', spans: [250, 250] };

/** Trouble codes, counted in flashes; several at once are shown one after the other, lowest first. */
export const TROUBLE_CODES = {
  output: 1,
  objectsLost: 2,
  portDown: 3,
  store: 4,
  firstBoot: 5,
  /** A system update was rolled back and nobody acknowledged it yet (docs/updates.md). */
  updateRolledBack: 6,
} as const;

export type Trouble = keyof typeof TROUBLE_CODES;

export const TROUBLE_FLASH_MS = 300;
export const TROUBLE_GAP_MS = 300;
/** Dark after each code's flashes, so a technician can count them. */
export const TROUBLE_PAUSE_MS = 2000;

/** N flashes (300 ms lit, 300 ms dark), then a 2 s pause, for every active code in order. */
export function troublePattern(troubles: readonly Trouble[]): BlinkPattern {
  const codes = [...new Set(troubles.map((t) => TROUBLE_CODES[t]))].sort((a, b) => a - b);
  if (codes.length === 0) return DARK;
  const spans: number[] = [];
  for (const code of codes) {
    for (let i = 0; i < code; i++) spans.push(TROUBLE_FLASH_MS, TROUBLE_GAP_MS);
    spans[spans.length - 1] = TROUBLE_PAUSE_MS;
  }
  return { name: `code ${codes.join('+')}`, spans };
}

export function cycleMs(pattern: BlinkPattern): number {
  return pattern.spans.reduce((sum, span) => sum + span, 0);
}

/** Whether the pattern is lit `elapsedMs` after it started. */
export function isLit(pattern: BlinkPattern, elapsedMs: number): boolean {
  const { spans } = pattern;
  if (spans.length === 0) return false;
  if (spans.length === 1) return true;
  let t = elapsedMs % cycleMs(pattern);
  for (let i = 0; i < spans.length; i++) {
    if (t < spans[i]!) return i % 2 === 0;
    t -= spans[i]!;
  }
  return false;
}
